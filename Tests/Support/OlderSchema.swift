import Foundation
import GRDB

/// Turns the log at `path` (made by this build, closed) back into a log of schema 1, as the
/// first Rewind wrote it: how tests get a log of an older schema.
public func downgradeToSchemaOne(_ path: String) throws {
    let database = try DatabaseQueue(path: path)
    try database.write { db in
        try db.execute(sql: """
            DROP VIEW timeline;
            DROP TABLE payloads;
            DROP TABLE gaps;
            DROP TABLE symbols;
            DROP TABLE log_identity;
            ALTER TABLE snapshots DROP COLUMN compression;
            ALTER TABLE sessions DROP COLUMN action_shape_id;
            ALTER TABLE sessions DROP COLUMN state_shape_id;
            DROP TABLE type_shapes;
            ALTER TABLE sessions DROP COLUMN first_seq;
            ALTER TABLE sessions DROP COLUMN last_seq;
            ALTER TABLE sessions DROP COLUMN event_count;
            ALTER TABLE sessions DROP COLUMN key_id;
            ALTER TABLE sessions DROP COLUMN key_salt;
            ALTER TABLE sessions DROP COLUMN key_check;
            CREATE TABLE events_v1 (
                seq INTEGER PRIMARY KEY, session_id INTEGER NOT NULL REFERENCES sessions (id), time REAL NOT NULL,
                action TEXT NOT NULL, payload ANY, source_id INTEGER NOT NULL REFERENCES sources (id), info TEXT, redaction TEXT
            ) STRICT;
            INSERT INTO events_v1
            SELECT e.seq, e.session_id, e.time, a.name, e.payload, e.source_id, e.info, e.redaction
            FROM events AS e JOIN actions AS a ON a.id = e.action_id;
            DROP TABLE events;
            DROP TABLE actions;
            ALTER TABLE events_v1 RENAME TO events;
            CREATE INDEX events_by_session ON events (session_id, seq);
            CREATE VIEW timeline AS SELECT * FROM events;
            DELETE FROM schema_migrations WHERE version > 1;
            PRAGMA user_version = 1
            """)
    }
    try database.close()
}

/// Marks the log at `path` (made by this build, closed) as written by a Rewind whose schema is
/// `version`: how tests get a log from a newer Rewind.
public func markAsNewerSchema(_ path: String, version: Int = 42) throws {
    let database = try DatabaseQueue(path: path)
    try database.write { db in try db.execute(sql: "PRAGMA user_version = \(version)") }
    try database.close()
}
