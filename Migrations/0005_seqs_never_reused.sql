-- Rewind log, schema version 5: seqs are never reused.
--
-- Before, `seq INTEGER PRIMARY KEY` let SQLite give the next event max(seq) + 1, so once
-- retention had deleted every event, numbering restarted at 1: below the snapshots it kept, and
-- equal to seqs an export of the older history still holds. AUTOINCREMENT numbers from the
-- largest seq ever used (kept in sqlite_sequence), whatever was deleted since. SQLite cannot add
-- it to a column, so the events table is rebuilt, as in migration 0004.
CREATE TABLE events_v5 (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id INTEGER NOT NULL REFERENCES sessions (id),
    time REAL NOT NULL,
    action_id INTEGER NOT NULL REFERENCES actions (id),
    payload ANY,                             -- the encoded action (TEXT for json, BLOB otherwise);
                                             -- NULL when withheld (see redaction)
    source_id INTEGER NOT NULL REFERENCES sources (id),
    info TEXT,                               -- the note given at dispatch
    redaction TEXT                           -- NULL; 'fields' (payload scrubbed); 'action'
                                             -- (payload withheld); 'unencodable: <reason>'
) STRICT;

INSERT INTO events_v5 (seq, session_id, time, action_id, payload, source_id, info, redaction)
SELECT seq, session_id, time, action_id, payload, source_id, info, redaction FROM events ORDER BY seq;

DROP VIEW timeline;
DROP TABLE events;
ALTER TABLE events_v5 RENAME TO events;

-- The largest seq used so far may belong to an event retention already deleted: every snapshot
-- and session base still names it. (Copying the events made a row for the table, renamed with
-- it, unless there were none.)
INSERT INTO sqlite_sequence (name, seq)
SELECT 'events', 0 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'events');
UPDATE sqlite_sequence SET seq = max(seq,
    coalesce((SELECT max(seq) FROM snapshots), 0),
    coalesce((SELECT max(base_seq) FROM sessions), 0),
    coalesce((SELECT max(last_seq) FROM sessions), 0))
WHERE name = 'events';

-- The timeline view, as migration 0004 defined it (a view is dropped with its table).
CREATE VIEW timeline AS
SELECT
    e.seq AS seq,
    e.session_id AS session,
    strftime('%Y-%m-%dT%H:%M:%fZ', e.time, 'unixepoch') AS time,
    a.name AS action,
    CASE
        WHEN e.payload IS NULL THEN NULL
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
