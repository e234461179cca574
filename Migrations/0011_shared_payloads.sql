-- Rewind log, schema version 11: payloads stored once when they repeat.
--
-- Apps dispatch the same payload again and again (the same product added, a catalogue reloaded,
-- a settings object saved unchanged); in the shop example most events repeat an earlier one's
-- payload. The writer now keeps a payload of 16 bytes or more that it has seen twice before in
-- `payloads`, once, and the event stores the row's id in its `payload` column: an INTEGER there
-- is a reference, where a TEXT or BLOB is the payload itself and NULL is a payload withheld. A
-- payload's first two events store it inline, so a payload seen once or twice costs nothing
-- extra on disk. Encrypted sessions never share (each payload is sealed to its seq). Ids are
-- never reused (AUTOINCREMENT): retention deletes the rows no event refers to any more, and a
-- writer that refers to a row writes it again if it is gone. Builds before this version refuse
-- the file (a newer schema) instead of reading a reference as a payload.
CREATE TABLE payloads (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    bytes ANY NOT NULL                       -- as the event would have stored it (TEXT for json)
) STRICT;

-- The timeline view, as migration 0007 defined it, showing a shared payload as its own.
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
