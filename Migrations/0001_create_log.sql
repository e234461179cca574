-- Rewind log, schema version 1: sessions, interned sources, events, snapshots, and the
-- `timeline` view for reading a log with sqlite3.
--
-- Applied once, in one transaction, by RewindLog's migrator, which also sets
-- PRAGMA application_id (0x52574E44, "RWND") and PRAGMA user_version (this file's number).
-- Migrations are forward-only: never edit a file once released; add the next number instead.
-- Times are seconds since 1970-01-01 UTC.

-- Which migrations have been applied (also counted by PRAGMA user_version).
CREATE TABLE schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at REAL NOT NULL
) STRICT;

-- One row per recording session (a store launch): what recorded the events that follow.
CREATE TABLE sessions (
    id INTEGER PRIMARY KEY,
    app_id TEXT NOT NULL,                    -- e.g. 'com.example.shop'
    app_version TEXT NOT NULL,
    action_schema_version INTEGER NOT NULL,  -- the version of the Action type the app declared
    state_schema_version INTEGER NOT NULL,   -- the version of the State type the app declared
    codec TEXT NOT NULL,                     -- how payloads and states are encoded ('json', …)
    started_at REAL NOT NULL,
    base_seq INTEGER NOT NULL,               -- the last seq in the log when the session began;
                                             -- its initial snapshot is stored at this seq
    info TEXT                                -- free-form JSON object from the app
) STRICT;

-- Each distinct call site once; events refer to it by id.
CREATE TABLE sources (
    id INTEGER PRIMARY KEY,
    file TEXT NOT NULL,                      -- #fileID: Module/File.swift
    function TEXT NOT NULL,
    line INTEGER NOT NULL,
    "column" INTEGER NOT NULL,
    origin TEXT NOT NULL,                    -- 'call', 'middleware' or 'effect'
    UNIQUE (file, function, line, "column", origin)
) STRICT;

-- Every recorded action, in the order the reducer saw it. seq is global across sessions,
-- increasing and without gaps.
CREATE TABLE events (
    seq INTEGER PRIMARY KEY,
    session_id INTEGER NOT NULL REFERENCES sessions (id),
    time REAL NOT NULL,
    action TEXT NOT NULL,                    -- the case path, e.g. 'cart.remove'
    payload ANY,                             -- the encoded action (TEXT for json, BLOB otherwise);
                                             -- NULL when withheld (see redaction)
    source_id INTEGER NOT NULL REFERENCES sources (id),
    info TEXT,                               -- the note given at dispatch
    redaction TEXT                           -- NULL; 'fields' (payload scrubbed); 'action'
                                             -- (payload withheld); 'unencodable: <reason>'
) STRICT;

CREATE INDEX events_by_session ON events (session_id, seq);

-- The state after event `seq` of a session, so replay can start near any point. Every session
-- has an 'initial' snapshot at its base_seq.
CREATE TABLE snapshots (
    session_id INTEGER NOT NULL REFERENCES sessions (id),
    seq INTEGER NOT NULL,
    time REAL NOT NULL,
    kind TEXT NOT NULL,                      -- 'initial', 'periodic' or 'retention'
    state ANY NOT NULL,
    PRIMARY KEY (session_id, seq)
) STRICT;

-- A readable log: `sqlite3 app.rewind 'select * from timeline where file like "%Cart%"'`.
CREATE VIEW timeline AS
SELECT
    e.seq AS seq,
    e.session_id AS session,
    strftime('%Y-%m-%dT%H:%M:%fZ', e.time, 'unixepoch') AS time,
    e.action AS action,
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
JOIN sources AS src ON src.id = e.source_id
JOIN sessions AS s ON s.id = e.session_id;
