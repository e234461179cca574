-- Rewind log, schema version 12: one file, several writers.
--
-- An app and its extensions may record into one log, each process its own sessions. Three
-- things make that safe:
--
-- * Session ids are never reused (AUTOINCREMENT, as migration 0005 did for seqs). Before,
--   `id INTEGER PRIMARY KEY` gave a new session max(id) + 1, so once retention had deleted the
--   newest session, the next one took its number, and a writer still holding that number
--   wrote into another process's session.
-- * Each session has a random `uuid`, made when it begins: an identity no other session, in
--   this log or a copy of it, ever has (ids removed before this version may come back, so
--   anything matching sessions across logs uses the uuid). While a process records a session,
--   it holds an exclusive lock on `<log>-sessions/<uuid>.lock`, which the kernel releases when
--   the process dies: other writers see whether a session is live.
-- * How each session ended: `ending` is NULL while it is recorded (or its writer died and no
--   writer has looked since), 'closed' when its recorder closed it, 'resumed' when a loss
--   ended it and recording went on in another session (see `gaps`), 'unclean' when a later
--   writer found it unended with its lock free (its process died: a crash, a kill, a power
--   cut), and 'unknown' for sessions recorded before this version. `end_seq` and `ended_at`
--   are its last committed seq (its base seq without events) and that event's time (its
--   start without events). Retention never removes an unended session or the snapshot it
--   continues from.
--
-- And a copy of a log becomes a log of its own once it is recorded into. A copy (`cp`, a backup
-- restored to a new file, an import or a pull) keeps the log's identity, so that pushing it
-- adds nothing a push of the original already added. Two copies recorded into would number
-- different sessions alike under one identity, and a store would take them for the same: so
-- `log_identity.file` holds the inode of the file the identity belongs to, and a writer
-- beginning a session in a file with another inode gives the log a new identity first. NULL:
-- not known yet (a log from before this version: the first session binds it); -1: an import or
-- pull, which keeps the identity until its first session.
ALTER TABLE log_identity ADD COLUMN file INTEGER;
--
-- SQLite cannot add AUTOINCREMENT to a column, so the table is rebuilt; the migrator runs this
-- with foreign keys off and checks them before it commits.
CREATE TABLE sessions_v12 (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    app_id TEXT NOT NULL,
    app_version TEXT NOT NULL,
    action_schema_version INTEGER NOT NULL,
    state_schema_version INTEGER NOT NULL,
    codec TEXT NOT NULL,
    started_at REAL NOT NULL,
    base_seq INTEGER NOT NULL,
    info TEXT,
    first_seq INTEGER,
    last_seq INTEGER,
    event_count INTEGER NOT NULL DEFAULT 0,
    key_id TEXT,
    key_salt BLOB,
    key_check BLOB,
    action_shape_id INTEGER REFERENCES type_shapes (id),
    state_shape_id INTEGER REFERENCES type_shapes (id),
    uuid TEXT NOT NULL UNIQUE,                           -- 8-4-4-4-12 lowercase hex
    ending TEXT,                                         -- NULL, 'closed', 'resumed', 'unclean', 'unknown'
    end_seq INTEGER,
    ended_at REAL
) STRICT;

INSERT INTO sessions_v12 (id, app_id, app_version, action_schema_version, state_schema_version, codec, started_at, base_seq, info,
                          first_seq, last_seq, event_count, key_id, key_salt, key_check, action_shape_id, state_shape_id,
                          uuid, ending, end_seq, ended_at)
SELECT id, app_id, app_version, action_schema_version, state_schema_version, codec, started_at, base_seq, info,
       first_seq, last_seq, event_count, key_id, key_salt, key_check, action_shape_id, state_shape_id,
       substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-4' || substr(h, 14, 3) || '-' ||
           substr('89ab', 1 + (abs(random()) % 4), 1) || substr(h, 18, 3) || '-' || substr(h, 21, 12),
       'unknown', coalesce(last_seq, base_seq), NULL
FROM (SELECT *, lower(hex(randomblob(16))) AS h FROM sessions) ORDER BY id;

DROP VIEW timeline;
DROP TABLE sessions;
ALTER TABLE sessions_v12 RENAME TO sessions;

-- The largest id used so far may belong to a session retention already deleted, which rows
-- of other tables may still name.
INSERT INTO sqlite_sequence (name, seq)
SELECT 'sessions', 0 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'sessions');
UPDATE sqlite_sequence SET seq = max(seq,
    coalesce((SELECT max(id) FROM sessions), 0),
    coalesce((SELECT max(session_id) FROM events), 0),
    coalesce((SELECT max(session_id) FROM snapshots), 0),
    coalesce((SELECT max(session_id) FROM gaps), 0),
    coalesce((SELECT max(resumed_session_id) FROM gaps), 0))
WHERE name = 'sessions';

-- The timeline view, as migration 0011 defined it (a view is dropped with its table).
CREATE VIEW timeline AS
SELECT
    e.seq AS seq,
    e.session_id AS session,
    strftime('%Y-%m-%dT%H:%M:%fZ', e.time, 'unixepoch') AS time,
    a.name AS action,
    CASE
        WHEN e.payload IS NULL THEN NULL
        WHEN s.key_id IS NOT NULL THEN '"<encrypted: ' || length(e.payload) || ' bytes>"'
        WHEN typeof(e.payload) = 'integer' THEN (
            SELECT CASE WHEN typeof(p.bytes) = 'text' THEN p.bytes
                        ELSE '"<' || s.codec || ': ' || length(p.bytes) || ' bytes, shared>"' END
            FROM payloads AS p WHERE p.id = e.payload
        )
        WHEN typeof(e.payload) = 'text' THEN e.payload
        ELSE '"<' || s.codec || ': ' || length(e.payload) || ' bytes>"'
    END AS payload,
    src.file AS file,
    src.function AS function,
    src.line AS line,
    e.info AS info,
    src.origin AS origin,
    e.redaction AS redaction
FROM events AS e
JOIN actions AS a ON a.id = e.action_id
JOIN sources AS src ON src.id = e.source_id
JOIN sessions AS s ON s.id = e.session_id;
