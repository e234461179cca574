-- Rewind log store on PostgreSQL, schema version 5: sessions ended in a hang, as in the
-- SQLite log's schema 15.
--
-- `ending` may also be 'hung', and `crash` then holds the hang watchdog's mark as JSON (the
-- action's case and source, when it began and when it was found over the limit); a push brings
-- both. No table changes: builds before this version refuse the store (a newer schema) instead
-- of calling the new ending damage.
SELECT 1;
