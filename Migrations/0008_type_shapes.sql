-- Rewind log, schema version 8: the shapes of the types each session was recorded with.
--
-- A session records the structure of its action and state types (cases, fields and their
-- types, recursively, as their encoding shows it) so that a later build can say what changed
-- even when nobody bumped a schema version. A shape is stored once however many sessions
-- share it; its fingerprint is a 64-bit FNV-1a hash of its canonical form, which leaves out
-- type names and the order of fields and cases (they do not change how values encode).
CREATE TABLE type_shapes (
    id INTEGER PRIMARY KEY,
    fingerprint TEXT NOT NULL,               -- 16 hex digits
    shape TEXT NOT NULL UNIQUE               -- JSON: the TypeShape, with type names
) STRICT;

ALTER TABLE sessions ADD COLUMN action_shape_id INTEGER REFERENCES type_shapes (id);   -- NULL: not recorded
ALTER TABLE sessions ADD COLUMN state_shape_id INTEGER REFERENCES type_shapes (id);    -- NULL: not recorded
