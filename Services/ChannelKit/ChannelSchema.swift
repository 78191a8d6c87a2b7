import SQLite

/// The channel shard's tables. Append-only: add a migration, never edit one.
enum ChannelSchema {
    static let migrations: [Migration] = [
        Migration("channel-1", """
            -- Each device's messages in the order they were stored; a row stays after it is acknowledged
            -- (acked = 1) until keep_until, so a message pushed again is not stored twice and its
            -- acknowledgement counts once.
            CREATE TABLE mailbox (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                registration_id TEXT NOT NULL,
                app_key TEXT NOT NULL,
                msg_id TEXT NOT NULL,
                kind TEXT NOT NULL,              -- message, inapp, reminder
                content TEXT NOT NULL,           -- the fields the device receives, as JSON
                target TEXT,                     -- in-app: JSON array of pages (empty: any)
                expires_at REAL NOT NULL,        -- not sent after this
                keep_until REAL NOT NULL,        -- deleted after this
                acked INTEGER NOT NULL DEFAULT 0,
                shown INTEGER NOT NULL DEFAULT 0 -- in-app: sent once, never again
            );
            CREATE UNIQUE INDEX mailbox_device ON mailbox (registration_id, msg_id);
            CREATE INDEX mailbox_live ON mailbox (registration_id, seq) WHERE acked = 0;
            CREATE INDEX mailbox_kept ON mailbox (keep_until);
            -- Where each device is connected (host, boot, connection NULL when it is not) and the page
            -- its app shows.
            CREATE TABLE presence (
                registration_id TEXT PRIMARY KEY,
                app_key TEXT NOT NULL,
                host INTEGER,
                boot TEXT,
                connection INTEGER,
                page TEXT,
                last_online REAL
            ) WITHOUT ROWID;
            CREATE INDEX presence_host ON presence (host) WHERE host IS NOT NULL;
            -- Hello proofs seen in their clock window: a hello is accepted once.
            CREATE TABLE hellos (
                proof TEXT PRIMARY KEY,
                ts REAL NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX hellos_ts ON hellos (ts);
            """),
    ]
}
