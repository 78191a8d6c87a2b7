import SQLite

/// The push service's tables. Append-only: add a migration, never edit one.
enum PushSchema {
    static let migrations: [Migration] = [
        Migration("push-1", """
            CREATE TABLE messages (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                msg_id TEXT NOT NULL UNIQUE,
                app_key TEXT NOT NULL,
                plan TEXT NOT NULL,              -- PushPlan as JSON
                request_id TEXT,
                state TEXT NOT NULL,             -- queued, sending, done, withdrawn
                cursor TEXT,                     -- audience.resolve's cursor of the next page; NULL before the first
                exhausted INTEGER NOT NULL DEFAULT 0,  -- every page is expanded into deliveries
                audience_total INTEGER,          -- audience.resolve's total, which paces a big push
                expanded INTEGER NOT NULL DEFAULT 0,   -- devices of the audience looked at so far
                targets INTEGER NOT NULL DEFAULT 0,
                sent INTEGER NOT NULL DEFAULT 0,
                pending INTEGER NOT NULL DEFAULT 0,
                created_at REAL NOT NULL
            );
            -- msg_ids are numbers of ten digits and more, as the public services' are.
            INSERT INTO sqlite_sequence (name, seq) VALUES ('messages', 1000000000);
            CREATE INDEX messages_open ON messages (id) WHERE state IN ('queued', 'sending');
            CREATE TABLE failures (
                message INTEGER NOT NULL,
                reason TEXT NOT NULL,
                count INTEGER NOT NULL,
                PRIMARY KEY (message, reason)
            ) WITHOUT ROWID;
            -- One row per device a message goes to: at most one notification per msg_id and device.
            CREATE TABLE deliveries (
                message INTEGER NOT NULL,
                registration_id TEXT NOT NULL,
                token TEXT NOT NULL,
                production INTEGER NOT NULL,
                badge INTEGER,                   -- the device's badge after this push, when it sets one
                status INTEGER NOT NULL DEFAULT 0,     -- 0 pending, 1 sent, 2 failed (3 withdrawn: push-7)
                reason TEXT,
                attempts INTEGER NOT NULL DEFAULT 0,
                due REAL NOT NULL,               -- when to send (or retry) it
                leased INTEGER NOT NULL DEFAULT 0,     -- 1 handed to a sender, 2 parked (withdrawn)
                PRIMARY KEY (message, registration_id)
            ) WITHOUT ROWID;
            CREATE INDEX deliveries_due ON deliveries (due) WHERE status = 0 AND leased = 0;
            CREATE TABLE credentials (
                app_key TEXT PRIMARY KEY,
                team_id TEXT NOT NULL,
                key_id TEXT NOT NULL,
                bundle_id TEXT NOT NULL,
                sealed_p8 BLOB NOT NULL,         -- SecretBox under server.key
                updated_at REAL NOT NULL
            );
            CREATE TABLE cids (
                app_key TEXT NOT NULL,
                cid TEXT NOT NULL,
                msg_id TEXT NOT NULL,
                created_at REAL NOT NULL,
                PRIMARY KEY (app_key, cid)
            ) WITHOUT ROWID;
            """),
        // What was already told to analytics (`push.delivered`), so each answer is counted there once.
        Migration("push-2", """
            ALTER TABLE messages ADD COLUMN sent_reported INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE failures ADD COLUMN reported INTEGER NOT NULL DEFAULT 0;
            """),
        // Expired idempotency keys are found by age.
        Migration("push-3", """
            CREATE INDEX cids_created ON cids (created_at);
            """),
        // Deliveries keyed by an integer in the order they were expanded: leasing, settling and
        // retrying a row find it by that number instead of comparing text keys (measured: the
        // text primary key's seeks were a fifth of the fan-out's time). The (message,
        // registration_id) pair stays unique: at most one notification per msg_id and device.
        Migration("push-4", """
            CREATE TABLE deliveries_by_id (
                id INTEGER PRIMARY KEY,          -- never reused: rows are not deleted
                message INTEGER NOT NULL,
                registration_id TEXT NOT NULL,
                token TEXT NOT NULL,
                production INTEGER NOT NULL,
                badge INTEGER,
                status INTEGER NOT NULL DEFAULT 0,
                reason TEXT,
                attempts INTEGER NOT NULL DEFAULT 0,
                due REAL NOT NULL,
                leased INTEGER NOT NULL DEFAULT 0
            );
            INSERT INTO deliveries_by_id (message, registration_id, token, production, badge, status, reason, attempts, due, leased)
                SELECT message, registration_id, token, production, badge, status, reason, attempts, due, leased FROM deliveries
                ORDER BY due, message, registration_id;
            DROP TABLE deliveries;
            ALTER TABLE deliveries_by_id RENAME TO deliveries;
            CREATE UNIQUE INDEX deliveries_target ON deliveries (message, registration_id);
            CREATE INDEX deliveries_due ON deliveries (due) WHERE status = 0 AND leased = 0;
            """),
        // What is still to tell analytics, found without reading every message ever sent: each
        // fired local notification is a message, so the table grows by thousands an hour, and the
        // report runs every second.
        Migration("push-5", """
            CREATE INDEX messages_unreported ON messages (id) WHERE sent > sent_reported;
            CREATE INDEX failures_unreported ON failures (message) WHERE count > reported;
            """),
        // Deliveries know their app, so the fan-out serves apps in turn (a broadcast of one app must
        // not hold back another's one-device push) and pauses one app's expansion, not every app's.
        Migration("push-6", """
            ALTER TABLE deliveries ADD COLUMN app_key TEXT;
            UPDATE deliveries SET app_key = (SELECT app_key FROM messages WHERE messages.id = deliveries.message) WHERE status = 0;
            CREATE INDEX deliveries_due_by_app ON deliveries (app_key, due) WHERE status = 0 AND leased = 0;
            CREATE INDEX messages_open_by_app ON messages (app_key, id) WHERE state IN ('queued', 'sending');
            """),
        // A withdrawn message's unsent deliveries end as withdrawn (status 3), not parked as pending
        // for ever: its `pending` reaches 0 and `push.status` says how many were withdrawn. The
        // trigger keeps the message's counters right wherever a delivery is withdrawn.
        Migration("push-7", """
            ALTER TABLE messages ADD COLUMN withdrawn INTEGER NOT NULL DEFAULT 0;
            UPDATE messages SET withdrawn = (SELECT COUNT(*) FROM deliveries d WHERE d.message = messages.id AND d.status = 0 AND d.leased = 2)
                WHERE state = 'withdrawn';
            UPDATE messages SET pending = pending - withdrawn WHERE state = 'withdrawn';
            UPDATE deliveries SET status = 3, leased = 0 WHERE status = 0 AND leased = 2;
            CREATE TRIGGER deliveries_withdrawn AFTER UPDATE OF status ON deliveries WHEN new.status = 3 AND old.status = 0
            BEGIN
                UPDATE messages SET pending = pending - 1, withdrawn = withdrawn + 1 WHERE id = new.message;
            END;
            """),
        // A message that names its devices (a few, no badge to count) is expanded by a lane of its
        // own, so a small push never waits for a page of a broadcast being expanded.
        Migration("push-8", """
            ALTER TABLE messages ADD COLUMN direct INTEGER NOT NULL DEFAULT 0;
            CREATE INDEX messages_open_by_lane ON messages (direct, app_key, id) WHERE state IN ('queued', 'sending') AND exhausted = 0;
            """),
        // The console: an app's messages newest first (a device's last messages are found by probing
        // its row in each of them: no index by device on the fan-out's hottest table).
        Migration("push-9", """
            CREATE INDEX messages_by_app ON messages (app_key, id);
            """),
        // When each delivery ended (a device's page in the console, and the burst benchmark's
        // lateness). Indexes no query reads any more, each kept up on every message and every
        // delivery written, are dropped: the apps with work are found from the deliveries
        // (`distinctAppKeys`), and the next retry per app (`nextDue`).
        Migration("push-10", """
            ALTER TABLE deliveries ADD COLUMN answered_at REAL;  -- when its sender's answer (or the channel's) was recorded
            DROP INDEX messages_open;
            DROP INDEX messages_open_by_app;
            DROP INDEX deliveries_due;
            """),
    ]
}
