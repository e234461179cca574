-- A collector's store (`rewind collect`): the reports its apps uploaded, each as received.
CREATE TABLE schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at REAL NOT NULL
);

-- One row per report: the sealed bytes exactly as received, with the clear header's fields for
-- listing and grouping without the team's key. The idempotency key is unique, so a retry after
-- a lost response, or two collectors receiving the same upload, store it once.
CREATE TABLE reports (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    idempotency_key TEXT NOT NULL UNIQUE,
    digest TEXT NOT NULL,
    app_id TEXT NOT NULL,
    app_version TEXT NOT NULL,
    install TEXT NOT NULL,
    token TEXT NOT NULL,
    header TEXT NOT NULL,
    created_at REAL NOT NULL,
    received_at REAL NOT NULL,
    size INTEGER NOT NULL,
    bytes BLOB NOT NULL
);
CREATE INDEX reports_by_app ON reports (app_id, received_at);
CREATE INDEX reports_by_install ON reports (install);

-- Tokens revoked while collectors run (by name; every collector on the store honours them).
CREATE TABLE revoked_tokens (
    name TEXT PRIMARY KEY,
    revoked_at REAL NOT NULL
);

-- The kill switch and other settings every collector on the store reads.
CREATE TABLE settings (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
