-- Rewind log, schema version 13: sessions ended by suspension.
--
-- `sessions.ending` may also be 'suspended': the app went to the background and its recorder
-- ended the session (`Recorder.suspend()`), letting go of the session's lock, so that a
-- suspended app holds no lock on the file; recording goes on in a new session when the app
-- comes back. A session that ended 'suspended' and is followed by no other was ended by
-- the system while the app was suspended, not by a crash. No table changes: builds before this
-- version refuse the file (a newer schema) instead of calling the new ending damage.
SELECT 1;
