-- Rewind store on PostgreSQL, schema version 6: a collector's reports (`rewind collect --store
-- postgres://…`), as the SQLite report store keeps them (Migrations/reports/).
--
-- One row per report: the sealed bytes exactly as received, with the clear header's fields for
-- listing and grouping without the team's key. The idempotency key is unique: several
-- collectors behind a load balancer, receiving the same upload at once, store it once.
CREATE TABLE rewind.reports (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    idempotency_key text NOT NULL UNIQUE,
    digest text NOT NULL,                       -- SHA-256 of `bytes`, hex
    app_id text NOT NULL,
    app_version text NOT NULL,
    install text NOT NULL,
    token text NOT NULL,                        -- the ingest token's name
    header text NOT NULL,                       -- the clear header, JSON
    created_at double precision NOT NULL,
    received_at double precision NOT NULL,
    size integer NOT NULL,
    bytes bytea NOT NULL
);
CREATE INDEX reports_by_app ON rewind.reports (app_id, received_at);
CREATE INDEX reports_by_install ON rewind.reports (install);

-- Tokens revoked while collectors run, by name.
CREATE TABLE rewind.revoked_tokens (
    name text PRIMARY KEY,
    revoked_at double precision NOT NULL
);

-- The kill switch and other settings every collector on the store reads.
CREATE TABLE rewind.collector_settings (
    name text PRIMARY KEY,
    value text NOT NULL
);
