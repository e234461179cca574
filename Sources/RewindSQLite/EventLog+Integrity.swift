import Foundation
import GRDB
public import RewindLogCore

extension EventLog {
    /// Checks the file with SQLite's `integrity_check`, and the log's own invariants: seqs
    /// without gaps, an initial snapshot for every session, each session's stored bounds and
    /// count matching its events, and no session going on after a recorded gap that ended it.
    /// Every event that refers to a shared payload must find it in the `payloads` table.
    /// Recorded gaps are listed, not counted as damage. Every payload and snapshot of an
    /// encrypted session whose key the log was given must authenticate; sessions whose key it
    /// was not given are listed as unchecked.
    ///
    /// Retention removes the oldest events, so the first seq may be above 1; gaps are only
    /// looked for between the first and the last.
    public func checkIntegrity() throws(EventLogError) -> IntegrityReport {
        var report = try checkTables()
        (report.unauthenticated, report.encryptedSessionsUnchecked) = try checkSealedValues()
        return report
    }

    /// SQLite's check and the log's own invariants over its tables.
    private func checkTables() throws(EventLogError) -> IntegrityReport {
        try read { db in
            let sqlite = try String.fetchAll(db, sql: "PRAGMA integrity_check")
            let row = try Row.fetchOne(db, sql: "SELECT count(*), min(seq), max(seq) FROM events")
            let count = try row?.optional(0, "count(events)", as: Int64.self) ?? 0
            let low = try row?.optional(1, "events.seq", as: Int64.self), high = try row?.optional(2, "events.seq", as: Int64.self)
            var gaps: [ClosedRange<Int64>] = []
            // In 128 bits: a tampered seq of Int64.min makes `high - low` overflow 64.
            if let low, let high, Int128(high) - Int128(low) + 1 != Int128(count) {
                let rows = try Row.fetchAll(db, sql: """
                    SELECT seq + 1 AS first, next - 1 AS last FROM (
                        SELECT seq, lead(seq) OVER (ORDER BY seq) AS next FROM events
                    ) WHERE next > seq + 1 LIMIT 100
                    """)
                gaps = try rows.map { row in
                    try .checked(try row.required("first", in: "events"), try row.required("last", in: "events"), "a gap in events.seq")
                }
            }
            let orphans = try Int64.fetchAll(db, sql: """
                SELECT id FROM sessions AS s
                WHERE NOT EXISTS (SELECT 1 FROM snapshots WHERE session_id = s.id AND kind = 'initial')
                  AND NOT EXISTS (SELECT 1 FROM snapshots WHERE session_id = s.id AND kind = 'retention')
                """)
            let wrongBounds = try Int64.fetchAll(db, sql: """
                SELECT s.id FROM sessions AS s LEFT JOIN (
                    SELECT session_id, min(seq) AS first, max(seq) AS last, count(*) AS n FROM events GROUP BY session_id
                ) AS b ON b.session_id = s.id
                WHERE s.event_count != coalesce(b.n, 0) OR s.first_seq IS NOT b.first OR s.last_seq IS NOT b.last
                ORDER BY s.id
                """)
            let continuing = try Int64.fetchAll(db, sql: """
                SELECT DISTINCT g.session_id FROM gaps AS g
                WHERE EXISTS (SELECT 1 FROM events WHERE session_id = g.session_id AND seq > g.after_seq)
                ORDER BY g.session_id
                """)
            let missingPayloads = try Int64.fetchAll(db, sql: """
                SELECT e.seq FROM events AS e
                WHERE typeof(e.payload) = 'integer' AND NOT EXISTS (SELECT 1 FROM payloads WHERE id = e.payload)
                ORDER BY e.seq LIMIT 100
                """)
            return IntegrityReport(
                sqlite: sqlite, eventCount: count, seqs: low.flatMap { low in high.map { low...$0 } },
                gaps: gaps, sessionsWithoutSnapshot: orphans, sessionsWithWrongBounds: wrongBounds,
                recordedGaps: try Self.fetchGaps(db, session: nil), sessionsContinuingAfterGap: continuing,
                eventsWithMissingPayload: missingPayloads
            )
        }
    }
}
