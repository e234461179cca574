public import Foundation
import GRDB
public import RewindLogCore

extension EventLog {
    /// Removes the oldest history beyond `retention`, cutting at the latest snapshot before
    /// the first event that must go, so the log still replays from there, and gives the space
    /// back: the file shrinks (see `Retention`).
    ///
    /// - Parameters:
    ///   - retention: The limits.
    ///   - now: The time that ages are measured from.
    /// - Returns: How many events were removed.
    ///
    /// A large backlog goes in steps of its own transaction each (see
    /// ``trim(to:now:removingAtMost:)``), so that other writers are not held off for long.
    @discardableResult
    public func trim(to retention: Retention, now: Date = Date()) throws(EventLogError) -> Int {
        var removed = 0
        while true {
            let step = try trim(to: retention, now: now, removingAtMost: retention.eventsPerStep)
            removed += step.removed
            if step.isComplete || step.removed == 0 { return removed }
        }
    }

    /// One step of ``trim(to:now:)``: removes about `limit` of the oldest events at most, cut at
    /// the latest snapshot before the `limit`-th (all that must go where no snapshot comes
    /// sooner), in one transaction, and gives the space back.
    ///
    /// The recorder's writer trims this way, a step per commit while it is behind: on a 1 GB log
    /// (18 million events) the default retention took 44 s in one transaction, while the app's
    /// actions waited; a step of 100,000 events takes about a quarter of a second.
    ///
    /// - Returns: How many events it removed, and whether the log is now within `retention`.
    public func trim(to retention: Retention, now: Date = Date(), removingAtMost limit: Int) throws(EventLogError) -> (removed: Int, isComplete: Bool) {
        let step = try removeHistory(beyond: retention, now: now, limit: max(1, limit))
        if step.removed > 0 { try giveSpaceBack() }
        return step
    }

    /// Returns the pages the deleted rows freed to the file system: the file shrinks.
    ///
    /// Logs are created with `auto_vacuum = INCREMENTAL`, so this is cheap: SQLite moves no
    /// rows, it truncates the free pages at the end of the file (in WAL mode, when the write-ahead
    /// log is checkpointed, done here too — passively, so readers are never blocked). A log
    /// created before schema 6 has no auto-vacuum: the first trim converts it with one `VACUUM`,
    /// which rewrites the whole file once.
    func giveSpaceBack() throws(EventLogError) {
        guard mode == .readWrite else { throw .readOnly(path: path, detail: "the log was opened read-only") }
        try mappingErrors(path: path) {
            try database.writeWithoutTransaction { db in
                if try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") != 2 {
                    try db.execute(sql: "PRAGMA auto_vacuum = INCREMENTAL")
                    try db.execute(sql: "VACUUM")
                }
                try db.execute(sql: "PRAGMA incremental_vacuum")
            }
        }
        try checkpoint()
    }

    private func removeHistory(beyond retention: Retention, now: Date, limit: Int) throws(EventLogError) -> (removed: Int, isComplete: Bool) {
        try write { db in
            // Sessions whose writers died are ended first: what is left unended is live, and
            // another process may write into it at any moment.
            try markAbandonedSessions(db)
            guard let last = try Int64.fetchOne(db, sql: "SELECT max(seq) FROM events") else { return (0, true) }
            // The first seq that must be kept under each limit; the strictest wins.
            var keepFrom: Int64 = 0
            if let maxEvents = retention.maxEvents {
                keepFrom = max(keepFrom, last - Int64(max(0, maxEvents)) + 1)
            }
            if let maxAge = retention.maxAge {
                let seconds = Double(maxAge.components.seconds) + Double(maxAge.components.attoseconds) / 1e18
                let oldest = try Int64.fetchOne(db, sql: "SELECT min(seq) FROM events WHERE time >= ?", arguments: [now.timeIntervalSince1970 - seconds]) ?? last + 1
                keepFrom = max(keepFrom, oldest)
            }
            if let maxBytes = retention.maxBytes {
                // Newest first, until the kept weight passes the limit: reads what is kept and
                // one event more. (A window function summing over every event, as before, took
                // 39 s on a 1 GB log, at each check; ordered outside, SQLite sums them all.)
                let events = try Row.fetchCursor(db, sql: "SELECT seq, coalesce(length(payload), 0) + 32 FROM events ORDER BY seq DESC")
                var kept = 0
                while let event = try events.next() {
                    kept += event[1] as Int
                    if kept > maxBytes {
                        keepFrom = max(keepFrom, (event[0] as Int64) + 1)
                        break
                    }
                }
            }
            // A step at a time: no further than `limit` events past the oldest, where a snapshot
            // allows it.
            let oldest = try Int64.fetchOne(db, sql: "SELECT min(seq) FROM events") ?? last
            var target = keepFrom
            if keepFrom - oldest > Int64(limit),
               try Int64.fetchOne(db, sql: "SELECT max(seq) FROM snapshots WHERE seq > ? AND seq < ?", arguments: [oldest, oldest + Int64(limit)]) != nil {
                target = oldest + Int64(limit)
            }
            let isComplete = target == keepFrom
            // Cut at the latest snapshot before the first event to keep…
            guard keepFrom > 0,
                  var start = try Int64.fetchOne(db, sql: "SELECT max(seq) FROM snapshots WHERE seq < ?", arguments: [target])
            else { return (0, true) }
            // …or earlier, when sessions interleave: every session that began before the cut
            // and keeps events — or is live, since its writer (maybe another process) goes on
            // from its last event whatever the cut takes — must have a snapshot exactly at the
            // cut, the state its remaining events follow. Lower the cut to such a session's
            // latest snapshot before it until that holds for all of them. (Safe rather than
            // tight: two long interleaved sessions rarely snapshot at the same seq, so the cut
            // may stay before the later one began; a live session holds the cut at its latest
            // snapshot until it writes another. Cutting each session on its own would not hold
            // others back, but would leave holes in the log's seqs, which `checkIntegrity`
            // reads as deleted events.)
            while let lowered = try Int64.fetchOne(db, sql: """
                SELECT min((SELECT max(p.seq) FROM snapshots AS p WHERE p.session_id = s.id AND p.seq <= ?))
                FROM sessions AS s WHERE s.last_seq > ? OR s.ending IS NULL
                """, arguments: [start, start]), lowered < start {
                start = lowered
            }
            guard start > 0 else { return (0, true) }
            // What the cut takes from each session, to keep its bounds and count.
            let cut = try Row.fetchAll(
                db, sql: "SELECT session_id, count(*) AS n FROM events WHERE seq <= ? GROUP BY session_id", arguments: [start]
            )
            try db.execute(sql: "DELETE FROM events WHERE seq <= ?", arguments: [start])
            let removed = db.changesCount
            // Payloads no kept event refers to (a writer still holding one's id writes it again).
            // A pass over every event: only when events went (a live session holding the cut
            // back makes trim after trim remove nothing, while the log grows), and once a
            // backlog is gone, not at each of its steps.
            if removed > 0, isComplete {
                try db.execute(sql: "DELETE FROM payloads WHERE id NOT IN (SELECT payload FROM events WHERE typeof(payload) = 'integer')")
                sharedPayloads.retentionDeletedRows()
            }
            for row in cut {
                let session = try row.required("session_id", in: "events", as: Int64.self), taken = try row.required("n", in: "events", as: Int.self)
                // Its next event, when it has one left, is the first of its own after the cut.
                let first = try Int64.fetchOne(db, sql: """
                    SELECT e.seq FROM events AS e JOIN sessions AS s ON s.id = e.session_id
                    WHERE s.id = ? AND s.event_count > ? AND e.seq > ? AND e.seq <= s.last_seq
                    ORDER BY e.seq LIMIT 1
                    """, arguments: [session, taken, start])
                try db.execute(sql: """
                    UPDATE sessions SET event_count = event_count - ?, first_seq = ?,
                        last_seq = CASE WHEN ? IS NULL THEN NULL ELSE last_seq END
                    WHERE id = ?
                    """, arguments: [taken, first, first, session])
            }
            try db.execute(sql: "DELETE FROM snapshots WHERE seq < ?", arguments: [start])
            try db.execute(sql: "UPDATE snapshots SET kind = 'retention' WHERE seq = ? AND kind = 'periodic'", arguments: [start])
            // Ended sessions left with nothing go, and with them the gaps that ended them (a gap
            // naming a deleted session as where recording resumed keeps the loss, not the link).
            // A live one never goes: it keeps the snapshot at the cut (above).
            let emptied = "SELECT id FROM sessions WHERE event_count = 0 AND ending IS NOT NULL AND id NOT IN (SELECT session_id FROM snapshots)"
            try db.execute(sql: "DELETE FROM gaps WHERE session_id IN (\(emptied))")
            try db.execute(sql: "UPDATE gaps SET resumed_session_id = NULL WHERE resumed_session_id IN (\(emptied))")
            try db.execute(sql: "DELETE FROM sessions WHERE id IN (\(emptied))")
            return (removed, isComplete)
        }
    }
}
