-- Rewind log, schema version 10: compressed snapshots.
--
-- A growing state's snapshots are most of a log's bytes; the writer now deflates each one that
-- gains from it. NULL: `state` is as the session's codec wrote it (or sealed with the session's
-- key). 'zlib': `state` is the state's length (8 bytes, little-endian) then its zlib stream.
-- Builds before this version refuse the file (a newer schema) instead of misreading it.
ALTER TABLE snapshots ADD COLUMN compression TEXT;
