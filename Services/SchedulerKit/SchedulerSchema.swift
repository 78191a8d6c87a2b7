import SQLite

/// The scheduler's tables. Append-only: add a migration, never edit one.
/// `pending` holds what is still to fire (`next_fire_at` null for a region, `inside` its last known
/// state); `delivered` what fired or was missed, one row per identifier, the newest kept per device;
/// `devices` the app and time zone of each device seen.
enum SchedulerSchema {
    static let migrations: [Migration] = [
        Migration("scheduler-1", """
            CREATE TABLE devices (
                registration_id TEXT PRIMARY KEY,
                app_key TEXT NOT NULL,
                timezone TEXT
            );
            CREATE TABLE pending (
                id INTEGER PRIMARY KEY,
                registration_id TEXT NOT NULL,
                identifier TEXT NOT NULL,
                kind TEXT NOT NULL,
                content BLOB NOT NULL,
                trigger BLOB NOT NULL,
                next_fire_at REAL,
                inside INTEGER,
                created_at REAL NOT NULL,
                updated_at REAL NOT NULL,
                UNIQUE (registration_id, identifier)
            );
            CREATE TABLE delivered (
                id INTEGER PRIMARY KEY,
                registration_id TEXT NOT NULL,
                identifier TEXT NOT NULL,
                content BLOB NOT NULL,
                trigger BLOB NOT NULL,
                fired_at REAL,
                due_at REAL NOT NULL,
                missed INTEGER NOT NULL DEFAULT 0,
                UNIQUE (registration_id, identifier)
            );
            """),
    ]
}
