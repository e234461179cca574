-- Rewind log store on PostgreSQL, schema version 2: how each session ended, as in the SQLite
-- log's schema 12.
--
-- `ending` is NULL while a session is recorded (or its log never said); 'closed', 'resumed',
-- 'unclean' or 'unknown' otherwise. `end_seq` is its last committed seq as the log it is read
-- through numbers it: a pushed session's in the device log's numbers (its events' `origin_seq`),
-- a session recorded into the store in the store's. A push brings a session's ending, and a
-- later push the ending of a session that was live when it was first pushed; a recorder into the
-- store records 'closed' when it closes. (A store has no session locks: a service that dies
-- leaves its session unended.)
ALTER TABLE rewind.sessions ADD COLUMN ending text;
ALTER TABLE rewind.sessions ADD COLUMN end_seq bigint;
ALTER TABLE rewind.sessions ADD COLUMN ended_at double precision;
