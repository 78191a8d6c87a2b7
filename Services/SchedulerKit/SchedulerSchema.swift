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
        // Server-side scheduled pushes (schedule.*): each fires a push.send through the gateway.
        Migration("scheduler-2", """
            CREATE TABLE push_schedules (
                id TEXT PRIMARY KEY,
                app_key TEXT NOT NULL,
                name TEXT NOT NULL,
                enabled INTEGER NOT NULL,
                trigger TEXT NOT NULL,           -- as given (JSON)
                timezone TEXT NOT NULL,
                push TEXT NOT NULL,              -- push.send's payload without app_key (JSON)
                next_fire_at REAL,               -- NULL: nothing left to fire
                last_error TEXT,
                created_at REAL NOT NULL
            );
            CREATE INDEX push_schedules_app ON push_schedules (app_key, created_at);
            CREATE INDEX push_schedules_due ON push_schedules (next_fire_at) WHERE enabled = 1 AND next_fire_at IS NOT NULL;
            CREATE TABLE push_schedule_fires (
                schedule TEXT NOT NULL REFERENCES push_schedules ON DELETE CASCADE,
                fire_at REAL NOT NULL,
                msg_id TEXT,
                PRIMARY KEY (schedule, fire_at)
            ) WITHOUT ROWID;
            """),
    ]
}
