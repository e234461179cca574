-- Rewind log, schema version 16: what caused each action.
--
-- `events.cause_distance` is how many seqs back the event's cause is: the action whose
-- middleware dispatched it, or whose effect sent it. `events.root_distance` is how many seqs
-- back the first action of its chain is (the gesture or outside event that started it): 0 for
-- a root, which nothing caused. Both are NULL when not known: events recorded before this
-- version, and causes the recorder could not name (lost in a gap, in another session). They are
-- distances, not seqs, so that a root costs nothing and a cause a byte or two; the timeline
-- view shows them as seqs.
ALTER TABLE events ADD COLUMN cause_distance INTEGER;
ALTER TABLE events ADD COLUMN root_distance INTEGER;

DROP VIEW timeline;

-- The timeline view, as migration 0012 defined it, with each event's cause and root.
CREATE VIEW timeline AS
SELECT
    e.seq AS seq,
    e.session_id AS session,
    strftime('%Y-%m-%dT%H:%M:%fZ', e.time, 'unixepoch') AS time,
    a.name AS action,
    CASE
        WHEN e.payload IS NULL THEN NULL
        WHEN s.key_id IS NOT NULL THEN '"<encrypted: ' || length(e.payload) || ' bytes>"'
        WHEN typeof(e.payload) = 'integer' THEN (
            SELECT CASE WHEN typeof(p.bytes) = 'text' THEN p.bytes
                        ELSE '"<' || s.codec || ': ' || length(p.bytes) || ' bytes, shared>"' END
            FROM payloads AS p WHERE p.id = e.payload
        )
        WHEN typeof(e.payload) = 'text' THEN e.payload
        ELSE '"<' || s.codec || ': ' || length(e.payload) || ' bytes>"'
    END AS payload,
    src.file AS file,
    src.function AS function,
    src.line AS line,
    e.info AS info,
    src.origin AS origin,
    e.redaction AS redaction,
    e.seq - e.cause_distance AS cause,
    e.seq - e.root_distance AS root
FROM events AS e
JOIN actions AS a ON a.id = e.action_id
JOIN sources AS src ON src.id = e.source_id
JOIN sessions AS s ON s.id = e.session_id;
