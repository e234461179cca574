-- Rewind log store on PostgreSQL, schema version 4: sessions ended by a crash, as in the
-- SQLite log's schema 14.
--
-- `ending` may also be 'crashed', and `crash` holds the crash hook's mark as JSON (signal,
-- address, image, offset, build id, actions never committed, time); a push brings both. NULL
-- for every other ending. Builds before this version refuse the store (a newer schema).
ALTER TABLE rewind.sessions ADD COLUMN crash text;
