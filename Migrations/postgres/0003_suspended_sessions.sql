-- Rewind log store on PostgreSQL, schema version 3: sessions ended by suspension, as in the
-- SQLite log's schema 13.
--
-- `ending` may also be 'suspended' (`Recorder.suspend()`: the app went to the background; a
-- pushed session brings it too). No table changes: builds before this version refuse the store
-- (a newer schema) instead of calling the new ending damage.
SELECT 1;
