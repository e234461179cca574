import Foundation
import PostgresNIO
public import RewindLog

extension PostgresLogReader {
    /// The store's ids of the log's sessions, or of session `number` alone (none when the log
    /// has no such session: its counts are zeros, as a file's are).
    private func storeIDs(session number: Int64?) throws(EventLogError) -> [Int64] {
        guard let number else { return try sessions().map { session throws(EventLogError) in try storeID(of: session.id) } }
        return try storeIDIfAny(of: number).map { [$0] } ?? []
    }

    /// Counts as the file counts them, grouped by the server. Sizes are the store's: payloads
    /// and states as stored there (a payload that events repeat counts each time, states are
    /// not deflated), and "on disk" is what the log's rows take (`pg_column_size`), indexes
    /// aside. Ties in the rankings are ordered by name bytewise, as SQLite orders them.
    public func statistics(session: Int64?, seqs: ClosedRange<Int64>?, times: ClosedRange<Double>?) throws(EventLogError) -> LogStatistics {
        let ids = try storeIDs(session: session), seq = seqColumn
        let (low, high) = (seqs?.lowerBound ?? .min, seqs?.upperBound ?? .max)
        let (from, until) = (times.map(\.lowerBound).flatMap { $0.isFinite ? $0 : nil }, times.map(\.upperBound).flatMap { $0.isFinite ? $0 : nil })
        let cases = try rows("""
            SELECT a.name, count(*) FROM rewind.events AS e JOIN rewind.actions AS a ON a.id = e.action_id
            WHERE e.session_id = ANY(\(ids)) AND e.\(unescaped: seq) BETWEEN \(low) AND \(high)
              AND e.time >= coalesce(\(from)::double precision, e.time) AND e.time <= coalesce(\(until)::double precision, e.time)
            GROUP BY a.name ORDER BY 2 DESC, a.name COLLATE "C"
            """, doing: "count the log's cases")
        let sources = try rows("""
            SELECT location, n FROM (
                SELECT min(src.file || ':' || src.line || ' ' || src.function) AS location, count(*) AS n
                FROM rewind.events AS e JOIN rewind.sources AS src ON src.id = e.source_id
                WHERE e.session_id = ANY(\(ids)) AND e.\(unescaped: seq) BETWEEN \(low) AND \(high)
                  AND e.time >= coalesce(\(from)::double precision, e.time) AND e.time <= coalesce(\(until)::double precision, e.time)
                GROUP BY e.source_id
            ) AS counted ORDER BY n DESC, location COLLATE "C"
            """, doing: "count the log's sources")
        let totals = try rows("""
            SELECT count(*), min(time), max(time), coalesce(sum(octet_length(payload)), 0)::bigint, coalesce(sum(pg_column_size(e.*)), 0)::bigint,
                   count(DISTINCT e.session_id)
            FROM rewind.events AS e WHERE e.session_id = ANY(\(ids)) AND e.\(unescaped: seq) BETWEEN \(low) AND \(high)
              AND e.time >= coalesce(\(from)::double precision, e.time) AND e.time <= coalesce(\(until)::double precision, e.time)
            """, doing: "count the log's events")
        let snapshots = try rows("""
            SELECT count(*), coalesce(sum(octet_length(state)), 0)::bigint, coalesce(sum(pg_column_size(p.*)), 0)::bigint
            FROM rewind.snapshots AS p WHERE p.session_id = ANY(\(ids)) AND p.\(unescaped: seq) BETWEEN \(low) AND \(high)
              AND p.time >= coalesce(\(from)::double precision, p.time) AND p.time <= coalesce(\(until)::double precision, p.time)
            """, doing: "count the log's snapshots")
        return try decoding("the log's statistics") {
            let (events, first, last, payloadBytes, eventRows, sessionsWithEvents) = try totals[0].decode((Int64, Double?, Double?, Int64, Int64, Int64).self)
            let (snapshotCount, snapshotBytes, snapshotRows) = try snapshots[0].decode((Int64, Int64, Int64).self)
            return LogStatistics(
                actionCases: try cases.map { row in let (name, count) = try row.decode((String, Int64).self); return (name, Int(count)) },
                sources: try sources.map { row in let (location, count) = try row.decode((String, Int64).self); return (location, Int(count)) },
                // A window counts the sessions it holds events of; otherwise every session.
                events: Int(events), sessions: seqs == nil && times == nil ? ids.count : Int(sessionsWithEvents), snapshots: Int(snapshotCount),
                // min and max of times: ordered unless a time is NaN, which `...` would trap on.
                timeSpan: first.flatMap { first in last.flatMap { first <= $0 ? first...$0 : nil } },
                bytesOnDisk: Int(eventRows + snapshotRows), payloadBytes: Int(payloadBytes), snapshotBytes: Int(snapshotBytes)
            )
        }
    }

    /// The file's buckets, computed by the server in the same double arithmetic.
    public func activity(session: Int64?, seqs: ClosedRange<Int64>?, times: ClosedRange<Double>?, buckets: Int, top: Int) throws(EventLogError) -> LogActivity? {
        let buckets = min(max(buckets, 1), 1_000), top = min(max(top, 1), 100)
        let ids = try storeIDs(session: session), seq = seqColumn
        let (first, last) = (seqs?.lowerBound ?? .min, seqs?.upperBound ?? .max)
        let (from, until) = (times.map(\.lowerBound).flatMap { $0.isFinite ? $0 : nil }, times.map(\.upperBound).flatMap { $0.isFinite ? $0 : nil })
        let span = try rows("""
            SELECT min(time), max(time) FROM rewind.events AS e WHERE session_id = ANY(\(ids)) AND e.\(unescaped: seq) BETWEEN \(first) AND \(last)
              AND e.time >= coalesce(\(from)::double precision, e.time) AND e.time <= coalesce(\(until)::double precision, e.time)
            """, doing: "read the log's time span")
        let (low, high) = try decoding("the log's time span") { try span.first?.decode((Double?, Double?).self) ?? (nil, nil) }
        // Infinite times or a span beyond Double's range (a damaged log) have no stretches.
        guard let low, let high, low <= high, (high - low).isFinite else { return nil }
        let width = (high - low) / Double(buckets)
        let counts = try rows("""
            SELECT least(\(Int64(buckets - 1)), greatest(0, trunc((e.time - \(low)) / \(width > 0 ? width : 1))))::bigint AS bucket,
                   a.name, min(src.file || ':' || src.line || ' ' || src.function), count(*)
            FROM rewind.events AS e JOIN rewind.actions AS a ON a.id = e.action_id JOIN rewind.sources AS src ON src.id = e.source_id
            WHERE e.session_id = ANY(\(ids)) AND e.time BETWEEN \(low) AND \(high) AND e.\(unescaped: seq) BETWEEN \(first) AND \(last)
            GROUP BY 1, a.name, e.source_id
            """, doing: "count the log's activity")
        return try decoding("the log's activity") {
            LogActivity(start: low, bucketSeconds: width, buckets: buckets, top: top, counts: try counts.map { row in
                let (bucket, name, source, count) = try row.decode((Int64, String, String, Int64).self)
                return (Int(clamping: bucket), name, source, Int(clamping: count))
            })
        }
    }

    /// The log's invariants, checked by the server over its rows, then every encrypted value
    /// the reader has the key of. The store's own pages are PostgreSQL's to check: the
    /// `sqlite` line reads `ok`. Seqs of sessions recorded into the store come from one
    /// sequence every session shares, so gaps between them are looked for only in a pushed log.
    public func checkIntegrity() throws(EventLogError) -> IntegrityReport {
        let ids = try storeIDs(session: nil), seq = seqColumn, number = numberColumn
        let totals = try rows("SELECT count(*), min(\(unescaped: seq)), max(\(unescaped: seq)) FROM rewind.events WHERE session_id = ANY(\(ids))", doing: "count the log's events")
        let (count, low, high) = try decoding("the log's events") { try totals[0].decode((Int64, Int64?, Int64?).self) }
        var gaps: [ClosedRange<Int64>] = []
        // In 128 bits: a tampered seq of Int64.min makes `high - low` overflow 64.
        if origin != nil, let low, let high, Int128(high) - Int128(low) + 1 != Int128(count) {
            let found = try rows("""
                SELECT seq + 1, next - 1 FROM (
                    SELECT origin_seq AS seq, lead(origin_seq) OVER (ORDER BY origin_seq) AS next FROM rewind.events WHERE session_id = ANY(\(ids))
                ) AS ordered WHERE next > seq + 1 LIMIT 100
                """, doing: "look for gaps in the log's seqs")
            gaps = try decoding("the log's seqs") {
                try found.compactMap { row in let (first, last) = try row.decode((Int64, Int64).self); return first <= last ? first...last : nil }
            }
        }
        let numbers = { (what: String, query: PostgresQuery) throws(EventLogError) -> [Int64] in
            let found = try self.rows(query, doing: what)
            return try self.decoding(what) { try found.map { try $0.decode(Int64.self) } }
        }
        let orphans = try numbers("look for sessions without a snapshot", """
            SELECT s.\(unescaped: number) FROM rewind.sessions AS s
            WHERE \(unescaped: selection)
              AND NOT EXISTS (SELECT 1 FROM rewind.snapshots WHERE session_id = s.id AND kind IN ('initial', 'retention'))
            ORDER BY 1
            """)
        let wrongBounds = try numbers("check the sessions' bounds", """
            SELECT s.\(unescaped: number) FROM rewind.sessions AS s
                 CROSS JOIN LATERAL (SELECT min(seq) AS first, max(seq) AS last, count(*) AS n FROM rewind.events WHERE session_id = s.id) AS b
            WHERE \(unescaped: selection)
              AND (s.event_count != b.n OR s.first_seq IS DISTINCT FROM b.first OR s.last_seq IS DISTINCT FROM b.last)
            ORDER BY 1
            """)
        let continuing = try numbers("look for sessions going on after a recorded gap", """
            SELECT DISTINCT s.\(unescaped: number) FROM rewind.gaps AS g JOIN rewind.sessions AS s ON s.id = g.session_id
            WHERE \(unescaped: selection) AND EXISTS (SELECT 1 FROM rewind.events WHERE session_id = g.session_id AND seq > g.after_seq)
            ORDER BY 1
            """)
        var report = IntegrityReport(
            sqlite: ["ok"], eventCount: count, seqs: low.flatMap { low in high.flatMap { low <= $0 ? low...$0 : nil } }, gaps: gaps,
            sessionsWithoutSnapshot: orphans, sessionsWithWrongBounds: wrongBounds, recordedGaps: try self.gaps(session: nil),
            // The store keeps every payload in its event's row: none can be missing.
            sessionsContinuingAfterGap: continuing, eventsWithMissingPayload: []
        )
        (report.unauthenticated, report.encryptedSessionsUnchecked) = try checkSealedValues()
        return report
    }
}
