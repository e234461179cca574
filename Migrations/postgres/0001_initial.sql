-- Rewind log store on PostgreSQL, schema version 1.
--
-- Everything lives in the `rewind` schema (created by the migrator, with its
-- `rewind.schema_migrations` bookkeeping), so a service's own tables are never touched.
--
-- The same log as the SQLite file, for many installs at once:
-- - a session has the store's number (`id`, what `rewind` commands name) and a global `uuid`
--   (the same session pushed twice is one), with the install that recorded it;
-- - seqs come from one store-wide sequence: global, increasing within every session (a session's
--   order is exact), not gapless across sessions (concurrent writers take turns);
-- - binary payloads name coding keys by symbol ids; each log pushed in keeps its own ids in a
--   symbol space of its own, so its payloads are stored byte for byte;
-- - a session pushed from a log keeps where it came from (the log's identity, its number there,
--   each event's seq there): pushing again adds nothing, and a push cut short resumes;
-- - events are partitioned by a hash of their session, so the table keeps working at billions
--   of rows; a session's events are in one partition.

CREATE TABLE rewind.type_shapes (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    fingerprint text NOT NULL,                  -- 16 hex digits
    digest bytea NOT NULL UNIQUE,               -- SHA-256 of `shape`: each shape stored once
    shape text NOT NULL                         -- JSON: the TypeShape
);

CREATE TABLE rewind.symbol_spaces (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    origin uuid NOT NULL UNIQUE                 -- the log whose symbol ids these are
);

CREATE TABLE rewind.symbols (
    space_id bigint NOT NULL REFERENCES rewind.symbol_spaces (id),
    id bigint NOT NULL,
    name text NOT NULL,
    PRIMARY KEY (space_id, id),
    UNIQUE (space_id, name)
);

CREATE TABLE rewind.sessions (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    uuid uuid NOT NULL UNIQUE DEFAULT gen_random_uuid(),
    install_id text,                            -- the device or install that recorded it
    origin uuid,                                -- pushed: the identity of the log it came from …
    origin_session bigint,                      -- … and its number there
    UNIQUE (origin, origin_session),
    app_id text NOT NULL,
    app_version text NOT NULL,
    action_schema_version integer NOT NULL,
    state_schema_version integer NOT NULL,
    codec text NOT NULL,
    symbol_space_id bigint REFERENCES rewind.symbol_spaces (id),
    started_at double precision NOT NULL,
    base_seq bigint NOT NULL,                   -- its initial snapshot's seq
    info text,
    key_id text,                                -- encryption, as in the SQLite log
    key_salt bytea,
    key_check bytea,
    action_shape_id bigint REFERENCES rewind.type_shapes (id),
    state_shape_id bigint REFERENCES rewind.type_shapes (id),
    first_seq bigint,                           -- kept by every writer, with the events
    last_seq bigint,
    event_count bigint NOT NULL DEFAULT 0
);
CREATE INDEX sessions_by_app ON rewind.sessions (app_id, app_version, started_at);
CREATE INDEX sessions_by_install ON rewind.sessions (install_id, started_at);

CREATE SEQUENCE rewind.seqs AS bigint MINVALUE 1;

CREATE TABLE rewind.sources (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    file text NOT NULL,
    function text NOT NULL,
    line bigint NOT NULL,
    "column" bigint NOT NULL,
    origin text NOT NULL,
    UNIQUE (file, function, line, "column", origin)
);

CREATE TABLE rewind.actions (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name text NOT NULL UNIQUE                   -- a case path, e.g. cart.remove
);

CREATE TABLE rewind.events (
    session_id bigint NOT NULL,
    seq bigint NOT NULL,
    origin_seq bigint,                          -- pushed: its seq in the log it came from (an
                                                -- encrypted payload is sealed to it)
    time double precision NOT NULL,
    action_id bigint NOT NULL,
    payload bytea,                              -- as the session's codec wrote it (JSON as UTF-8)
    source_id bigint NOT NULL,
    info text,
    redaction text,
    PRIMARY KEY (session_id, seq),
    UNIQUE (session_id, origin_seq)
) PARTITION BY HASH (session_id);
CREATE TABLE rewind.events_00 PARTITION OF rewind.events FOR VALUES WITH (MODULUS 16, REMAINDER 0);
CREATE TABLE rewind.events_01 PARTITION OF rewind.events FOR VALUES WITH (MODULUS 16, REMAINDER 1);
CREATE TABLE rewind.events_02 PARTITION OF rewind.events FOR VALUES WITH (MODULUS 16, REMAINDER 2);
CREATE TABLE rewind.events_03 PARTITION OF rewind.events FOR VALUES WITH (MODULUS 16, REMAINDER 3);
CREATE TABLE rewind.events_04 PARTITION OF rewind.events FOR VALUES WITH (MODULUS 16, REMAINDER 4);
CREATE TABLE rewind.events_05 PARTITION OF rewind.events FOR VALUES WITH (MODULUS 16, REMAINDER 5);
CREATE TABLE rewind.events_06 PARTITION OF rewind.events FOR VALUES WITH (MODULUS 16, REMAINDER 6);
CREATE TABLE rewind.events_07 PARTITION OF rewind.events FOR VALUES WITH (MODULUS 16, REMAINDER 7);
CREATE TABLE rewind.events_08 PARTITION OF rewind.events FOR VALUES WITH (MODULUS 16, REMAINDER 8);
CREATE TABLE rewind.events_09 PARTITION OF rewind.events FOR VALUES WITH (MODULUS 16, REMAINDER 9);
CREATE TABLE rewind.events_10 PARTITION OF rewind.events FOR VALUES WITH (MODULUS 16, REMAINDER 10);
CREATE TABLE rewind.events_11 PARTITION OF rewind.events FOR VALUES WITH (MODULUS 16, REMAINDER 11);
CREATE TABLE rewind.events_12 PARTITION OF rewind.events FOR VALUES WITH (MODULUS 16, REMAINDER 12);
CREATE TABLE rewind.events_13 PARTITION OF rewind.events FOR VALUES WITH (MODULUS 16, REMAINDER 13);
CREATE TABLE rewind.events_14 PARTITION OF rewind.events FOR VALUES WITH (MODULUS 16, REMAINDER 14);
CREATE TABLE rewind.events_15 PARTITION OF rewind.events FOR VALUES WITH (MODULUS 16, REMAINDER 15);
-- Finding the session of a seq (`rewind show SEQ`) without knowing it: every partition's index.
CREATE INDEX events_by_seq ON rewind.events (seq);

CREATE TABLE rewind.snapshots (
    session_id bigint NOT NULL REFERENCES rewind.sessions (id),
    seq bigint NOT NULL,                        -- the state after that event (or the base seq)
    origin_seq bigint,                          -- pushed: its seq in the log it came from
    time double precision NOT NULL,
    kind text NOT NULL,                         -- initial, periodic, retention
    state bytea NOT NULL,
    PRIMARY KEY (session_id, seq),
    UNIQUE (session_id, origin_seq)
);

CREATE TABLE rewind.gaps (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    session_id bigint NOT NULL REFERENCES rewind.sessions (id),
    after_seq bigint NOT NULL,
    lost bigint NOT NULL,
    cases text NOT NULL,                        -- JSON: case → count
    reason text NOT NULL,
    first_time double precision NOT NULL,
    last_time double precision NOT NULL,
    resumed_session_id bigint REFERENCES rewind.sessions (id),
    UNIQUE (session_id, after_seq)
);
