-- Rewind log, schema version 7: sessions whose payloads and snapshots are encrypted.
--
-- An app may give its log a key (from its keychain; the log never holds it). A session begun
-- with one seals every payload and snapshot with AES-GCM under a key derived from the app's key
-- and the session's salt, each bound to its seq. The session row says which key, by the id the
-- app gave it, so keys can rotate: a reader finds each session's key by id. Everything needed
-- to list sessions and events (ids, times, cases, sources, notes) stays readable without a key.
ALTER TABLE sessions ADD COLUMN key_id TEXT;             -- NULL: stored in the clear
ALTER TABLE sessions ADD COLUMN key_salt BLOB;           -- 16 random bytes, mixed into the session's key
ALTER TABLE sessions ADD COLUMN key_check BLOB;          -- 16 bytes derived from the key and salt: tells
                                                         -- a wrong key from a damaged payload

-- The timeline view, as migration 0005 defined it, showing an encrypted payload by its size.
DROP VIEW timeline;
CREATE VIEW timeline AS
SELECT
    e.seq AS seq,
    e.session_id AS session,
    strftime('%Y-%m-%dT%H:%M:%fZ', e.time, 'unixepoch') AS time,
    a.name AS action,
    CASE
        WHEN e.payload IS NULL THEN NULL
        WHEN s.key_id IS NOT NULL THEN '"<encrypted: ' || length(e.payload) || ' bytes>"'
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
