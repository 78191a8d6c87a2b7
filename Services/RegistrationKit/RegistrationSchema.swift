import SQLite

/// The registration service's tables. Append-only: add a migration, never edit one.
enum RegistrationSchema {
    static let migrations: [Migration] = [
        Migration("registration-1", """
            CREATE TABLE apps (
                app_key TEXT PRIMARY KEY,
                name TEXT NOT NULL,
                master_secret TEXT NOT NULL,
                created_at REAL NOT NULL
            );
            CREATE TABLE devices (
                registration_id TEXT PRIMARY KEY,
                app_key TEXT NOT NULL,
                platform TEXT NOT NULL,
                device_id TEXT,
                apns_token TEXT,
                apns_production INTEGER NOT NULL DEFAULT 0,
                sdk_version TEXT,
                voip_token TEXT,
                language TEXT,
                timezone TEXT,
                mobile TEXT,
                created_at REAL NOT NULL,
                updated_at REAL NOT NULL
            );
            CREATE UNIQUE INDEX devices_install ON devices (app_key, device_id) WHERE device_id IS NOT NULL;
            CREATE TABLE live_activity_start_tokens (
                registration_id TEXT NOT NULL REFERENCES devices ON DELETE CASCADE,
                activity_attributes TEXT NOT NULL,
                token TEXT NOT NULL,
                PRIMARY KEY (registration_id, activity_attributes)
            );
            CREATE TABLE live_activity_tokens (
                registration_id TEXT NOT NULL REFERENCES devices ON DELETE CASCADE,
                live_activity_id TEXT NOT NULL,
                token TEXT NOT NULL,
                PRIMARY KEY (registration_id, live_activity_id)
            );
            """),
        // When each APNs token was last given, so a token APNs reports dead is disabled only when the
        // device has not registered it again since (APNs' 410 `timestamp`).
        Migration("registration-2", """
            ALTER TABLE devices ADD COLUMN apns_token_at REAL;
            ALTER TABLE devices ADD COLUMN voip_token_at REAL;
            UPDATE devices SET apns_token_at = updated_at WHERE apns_token IS NOT NULL;
            UPDATE devices SET voip_token_at = updated_at WHERE voip_token IS NOT NULL;
            """),
        // Whether the device's user lets the app show notifications (granted, denied, provisional).
        Migration("registration-3", """
            ALTER TABLE devices ADD COLUMN notification_authorization TEXT;
            """),
    ]
}
