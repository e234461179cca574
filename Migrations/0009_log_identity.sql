-- Rewind log, schema version 9: the log's identity.
--
-- A random UUID made once, when the log is created (or migrated to this version), and kept by
-- copies of the file and by an export and its import. A PostgreSQL store knows a pushed
-- session by it and the session's number, so pushing the same log twice adds nothing.
CREATE TABLE log_identity (
    uuid TEXT NOT NULL                                   -- 8-4-4-4-12 lowercase hex
) STRICT;

INSERT INTO log_identity (uuid)
SELECT substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-4' || substr(h, 14, 3) || '-' ||
       substr('89ab', 1 + (abs(random()) % 4), 1) || substr(h, 18, 3) || '-' || substr(h, 21, 12)
FROM (SELECT lower(hex(randomblob(16))) AS h);
