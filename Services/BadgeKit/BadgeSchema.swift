import SQLite

/// The badge service's tables. Append-only: add a migration, never edit one.
enum BadgeSchema {
    static let migrations: [Migration] = [
        Migration("badge-1", """
            -- Devices this service knows, learned from device.registered (or from a device setting its
            -- own badge first), with the badge the server keeps for each.
            CREATE TABLE devices (
                registration_id TEXT PRIMARY KEY,
                app_key TEXT NOT NULL,
                badge INTEGER NOT NULL DEFAULT 0
            ) WITHOUT ROWID;
            -- Pushes applied with badge.apply, remembered for the retention window after their last call.
            CREATE TABLE messages (
                id INTEGER PRIMARY KEY,
                app_key TEXT NOT NULL,
                msg_id TEXT NOT NULL,
                badge TEXT NOT NULL,
                last_applied_at REAL NOT NULL,
                UNIQUE (app_key, msg_id)
            );
            CREATE INDEX messages_age ON messages (last_applied_at);
            -- Which device each push already changed, and the value it gave: a retry answers it again.
            -- No index by device: a push writes one row per device, and a second random insert per
            -- device would cost more than finding a deleted device's rows push by push.
            CREATE TABLE applied (
                message INTEGER NOT NULL,
                registration_id TEXT NOT NULL,
                value INTEGER NOT NULL,
                PRIMARY KEY (message, registration_id)
            ) WITHOUT ROWID;
            -- Deleted devices, so a late setBadge from one cannot bring it back within the window.
            CREATE TABLE forgotten (
                registration_id TEXT PRIMARY KEY,
                forgotten_at REAL NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX forgotten_age ON forgotten (forgotten_at);
            """),
    ]
}
