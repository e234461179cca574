-- Rewind log, schema version 6: a failed write leaves an explicit mark, never a silent hole.
--
-- When a batch cannot be committed (disk full, I/O error), the session it was for ends there:
-- later snapshots of the live state would include the lost actions, so folding on across the
-- hole would blame the reducer. The recorder records the loss here once writing works again —
-- how many actions, their cases, why, and when — and resumes in a new session that starts from
-- a fresh snapshot of the live state (`resumed_session_id`), in the same transaction.
CREATE TABLE gaps (
    id INTEGER PRIMARY KEY,
    session_id INTEGER NOT NULL REFERENCES sessions (id),    -- the session the loss ended
    after_seq INTEGER NOT NULL,                              -- its last recorded seq (its base
                                                             -- seq when none was)
    lost INTEGER NOT NULL CHECK (lost >= 0),                 -- actions dispatched but not recorded
    cases TEXT NOT NULL,                                     -- JSON: {"case.path": count, …}
    reason TEXT NOT NULL,                                    -- the error that lost them
    first_time REAL NOT NULL,                                -- when the first and last lost action
    last_time REAL NOT NULL,                                 -- were dispatched (seconds since 1970)
    resumed_session_id INTEGER REFERENCES sessions (id)      -- where recording went on
) STRICT;

CREATE INDEX gaps_by_session ON gaps (session_id);
