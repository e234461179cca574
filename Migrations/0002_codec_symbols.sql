-- Rewind log, schema version 2: interned coding keys for binary payloads.
--
-- The binary codec writes each coding key as a number; this table holds the key strings. A
-- symbol is inserted in the same transaction as the first payload that uses it, so a reader
-- that can see a payload can always see its symbols. Ids are never reused or changed.
CREATE TABLE symbols (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
) STRICT;
