-- Rewind log, schema version 4: each action case path is stored once, in `actions`, and events
-- refer to it by id.
--
-- A case path such as 'cart.applyDiscount' took 13 bytes on average in every event row (a
-- sixth of a binary event); its id takes one or two. The `timeline` view still shows the path.
-- SQLite cannot change a column's type, so the events table is rebuilt: the migration copies
-- every event once (1.6 s for a million events on a 2-core Linux machine).
CREATE TABLE actions (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE                -- the case path, e.g. 'cart.remove'
) STRICT;

INSERT INTO actions (name) SELECT DISTINCT action FROM events ORDER BY action;

CREATE TABLE events_v4 (
    seq INTEGER PRIMARY KEY,
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

INSERT INTO events_v4 (seq, session_id, time, action_id, payload, source_id, info, redaction)
SELECT e.seq, e.session_id, e.time, a.id, e.payload, e.source_id, e.info, e.redaction
FROM events AS e JOIN actions AS a ON a.name = e.action
ORDER BY e.seq;

DROP VIEW timeline;
DROP TABLE events;
ALTER TABLE events_v4 RENAME TO events;

-- A readable log: `sqlite3 app.rewind 'select * from timeline where file like "%Cart%"'`.
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
