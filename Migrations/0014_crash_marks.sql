-- Rewind log, schema version 14: sessions ended by a crash.
--
-- `sessions.ending` may also be 'crashed': the process recording the session crashed, and its
-- crash hook wrote a mark into the session's lock file (`<log>-sessions/<uuid>.lock`) before
-- the process ended. The next writer of the log finds the session unended with its lock free,
-- reads the mark, and records it in `crash`: JSON with the signal, the faulting address, the
-- image and offset of the instruction, the image's build id, how many actions were reduced but
-- never committed, and when (RewindLogCore's `CrashMark`). A session that ended any other way
-- has no `crash`. Builds before this version refuse the file (a newer schema).
ALTER TABLE sessions ADD COLUMN crash TEXT;
