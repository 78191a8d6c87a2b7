import SQLite

/// The analytics service's tables, keyed by EUID wherever a row belongs to one user (the shard key).
/// Append-only: add a migration, never edit one.
enum AnalyticsSchema {
    static let migrations: [Migration] = [
        Migration("analytics-1", """
            CREATE TABLE euids (
                euid TEXT PRIMARY KEY,
                app_key TEXT NOT NULL,
                created_at REAL NOT NULL,
                merged_into TEXT
            ) WITHOUT ROWID;
            CREATE INDEX euids_merged ON euids (merged_into) WHERE merged_into IS NOT NULL;
            CREATE TABLE installs (
                app_key TEXT NOT NULL,
                device_id TEXT NOT NULL,
                euid TEXT NOT NULL,
                PRIMARY KEY (app_key, device_id)
            ) WITHOUT ROWID;
            CREATE INDEX installs_euid ON installs (euid);
            CREATE TABLE identities (
                app_key TEXT NOT NULL,
                kind TEXT NOT NULL,
                value TEXT NOT NULL,
                euid TEXT NOT NULL,
                PRIMARY KEY (app_key, kind, value)
            ) WITHOUT ROWID;
            CREATE UNIQUE INDEX identities_euid ON identities (euid, kind);
            CREATE TABLE contacts (
                euid TEXT NOT NULL,
                kind TEXT NOT NULL,
                value TEXT NOT NULL,
                PRIMARY KEY (euid, kind)
            ) WITHOUT ROWID;
            CREATE TABLE channel_values (
                euid TEXT NOT NULL,
                channel_id INTEGER NOT NULL,
                value_list TEXT NOT NULL,
                PRIMARY KEY (euid, channel_id)
            ) WITHOUT ROWID;
            CREATE TABLE property_types (
                app_key TEXT NOT NULL,
                name TEXT NOT NULL,
                type TEXT NOT NULL,
                PRIMARY KEY (app_key, name)
            ) WITHOUT ROWID;
            CREATE TABLE subfield_types (
                app_key TEXT NOT NULL,
                property TEXT NOT NULL,
                subfield TEXT NOT NULL,
                type TEXT NOT NULL,
                PRIMARY KEY (app_key, property, subfield)
            ) WITHOUT ROWID;
            CREATE TABLE properties (
                euid TEXT NOT NULL,
                name TEXT NOT NULL,
                value TEXT NOT NULL,
                PRIMARY KEY (euid, name)
            ) WITHOUT ROWID;
            CREATE TABLE events (
                id INTEGER PRIMARY KEY,
                euid TEXT NOT NULL,
                name TEXT NOT NULL,
                time REAL NOT NULL,
                properties TEXT,
                utm TEXT
            );
            CREATE INDEX events_euid ON events (euid, time);
            CREATE TABLE sessions (
                id INTEGER PRIMARY KEY,
                euid TEXT NOT NULL,
                app_key TEXT NOT NULL,
                started_at REAL NOT NULL,
                ended_at REAL NOT NULL,
                events INTEGER NOT NULL
            );
            CREATE INDEX sessions_euid ON sessions (euid, ended_at);
            CREATE INDEX sessions_app ON sessions (app_key, started_at);
            CREATE TABLE event_counts (
                app_key TEXT NOT NULL,
                hour INTEGER NOT NULL,
                name TEXT NOT NULL,
                count INTEGER NOT NULL,
                PRIMARY KEY (app_key, hour, name)
            ) WITHOUT ROWID;
            CREATE TABLE push_reports (
                id INTEGER PRIMARY KEY,
                app_key TEXT NOT NULL,
                registration_id TEXT NOT NULL,
                kind TEXT NOT NULL,
                msg_id TEXT,
                page TEXT,
                time REAL NOT NULL
            );
            CREATE UNIQUE INDEX push_reports_once ON push_reports (app_key, msg_id, kind, registration_id)
                WHERE msg_id IS NOT NULL;
            CREATE INDEX push_reports_device ON push_reports (registration_id);
            CREATE TABLE message_counts (
                app_key TEXT NOT NULL,
                msg_id TEXT NOT NULL,
                kind TEXT NOT NULL,
                count INTEGER NOT NULL,
                PRIMARY KEY (app_key, msg_id, kind)
            ) WITHOUT ROWID;
            CREATE TABLE forgotten_devices (
                registration_id TEXT PRIMARY KEY,
                app_key TEXT NOT NULL,
                forgotten_at REAL NOT NULL
            ) WITHOUT ROWID;
            """),
        // The EUIDs each device may act on (`DeviceBindings`): those its own signed ma.start and
        // ma.identify gave it, the latest bound being the one its ma.start answers.
        Migration("analytics-2", """
            CREATE TABLE device_euids (
                registration_id TEXT NOT NULL,
                euid TEXT NOT NULL,
                bound_order INTEGER NOT NULL,
                PRIMARY KEY (registration_id, euid)
            ) WITHOUT ROWID;
            CREATE INDEX device_euids_by_euid ON device_euids (euid);
            """),
        // A message report counts only once push has said its device was a target of the message
        // (`ReportVerifier`): NULL until then, 1 a target's (counted), 0 refused. Rows from before
        // were counted when they came, so they are 1, and so are page reports, which need no check.
        Migration("analytics-3", """
            ALTER TABLE push_reports ADD COLUMN verified INTEGER DEFAULT 1;
            CREATE INDEX push_reports_unverified ON push_reports (id) WHERE verified IS NULL;
            """),
    ]
}
