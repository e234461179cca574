-- Rewind log store on PostgreSQL, schema version 7: what caused each action, as in the SQLite
-- log's schema 16.
--
-- `cause_distance` and `root_distance` are how many seqs back the event's cause and the first
-- action of its chain are (0 for a root), NULL when not known. They count in the seqs the
-- session is read by: the store's for sessions recorded into it, the device's (`origin_seq`)
-- for pushed ones, so a push copies them as the device log holds them.
ALTER TABLE rewind.events ADD COLUMN cause_distance bigint, ADD COLUMN root_distance bigint;
