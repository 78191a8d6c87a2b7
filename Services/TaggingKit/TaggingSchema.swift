import SQLite

/// The tagging service's tables. Devices, tags and channels get integer ids so the audience
/// indexes (`device_tags`, `subscriptions`) are compact and ordered by device for paging; a device's
/// own tag names live in its row (`devices.tags`, newline-separated), and `device_tags`, derived
/// from them, in a file of its own (`AudienceIndex`).
/// Append-only: add a migration, never edit one.
enum TaggingSchema {
    static let migrations: [Migration] = [
        Migration("tagging-1", """
            CREATE TABLE devices (
                id INTEGER PRIMARY KEY,
                registration_id TEXT NOT NULL UNIQUE,
                app_key TEXT NOT NULL,
                alias TEXT
            );
            CREATE INDEX devices_by_app ON devices (app_key, id);
            CREATE INDEX devices_by_alias ON devices (app_key, alias, id) WHERE alias IS NOT NULL;

            CREATE TABLE tags (
                id INTEGER PRIMARY KEY,
                app_key TEXT NOT NULL,
                name TEXT NOT NULL,
                devices INTEGER NOT NULL DEFAULT 0,
                UNIQUE (app_key, name)
            );
            CREATE TABLE device_tags (
                tag INTEGER NOT NULL,
                device INTEGER NOT NULL,
                PRIMARY KEY (tag, device)
            ) WITHOUT ROWID;
            CREATE INDEX device_tags_by_device ON device_tags (device, tag);

            CREATE TABLE channels (
                id INTEGER PRIMARY KEY,
                app_key TEXT NOT NULL,
                name TEXT NOT NULL,
                UNIQUE (app_key, name)
            );
            CREATE TABLE subscriptions (
                channel INTEGER NOT NULL,
                device INTEGER NOT NULL,
                expires_at REAL,
                background_push INTEGER NOT NULL DEFAULT 0,
                PRIMARY KEY (channel, device)
            ) WITHOUT ROWID;
            CREATE INDEX subscriptions_by_device ON subscriptions (device, channel);
            CREATE INDEX subscriptions_by_expiry ON subscriptions (expires_at) WHERE expires_at IS NOT NULL;
            """),
        // A device's tags move into its own row: reading or changing them touches that row, not a
        // second index of device_tags (one B-tree write less for each tag bound or unbound).
        Migration("tagging-2", """
            ALTER TABLE devices ADD COLUMN tags TEXT NOT NULL DEFAULT '';
            UPDATE devices SET tags = COALESCE((
                SELECT group_concat(t.name, char(10)) FROM device_tags d JOIN tags t ON t.id = d.tag WHERE d.device = devices.id
            ), '');
            DROP INDEX device_tags_by_device;
            """),
        // The audience index moves to a derived file of its own (`AudienceIndex`), built again from
        // `devices.tags`; the database keeps the mark of the index it was last closed with.
        Migration("tagging-3", """
            DROP TABLE device_tags;
            CREATE TABLE audience_index_mark (epoch INTEGER NOT NULL);
            INSERT INTO audience_index_mark (epoch) VALUES (0);
            """),
    ]
}
