import GRDB
public import RewindLogCore

extension EventLog {
    /// Events per stretch of time: the log's time span cut into `buckets` equal stretches.
    ///
    /// One pass over the events (a few seconds on 10,000,000).
    ///
    /// - Parameters:
    ///   - session: Only this session's events (default: all).
    ///   - seqs: Only events in this seq range.
    ///   - times: Only events in this time window (seconds since 1970).
    ///   - buckets: How many stretches, 1 to 1,000 (clamped).
    ///   - top: How many cases and sources get their own series, 1 to 100 (clamped); the rest
    ///     are summed as `other`.
    /// - Returns: The counts, or `nil` when there are no events.
    public func activity(
        session: Int64? = nil, seqs: ClosedRange<Int64>? = nil, times: ClosedRange<Double>? = nil, buckets: Int, top: Int = 8
    ) throws(EventLogError) -> LogActivity? {
        let buckets = min(max(buckets, 1), 1_000), top = min(max(top, 1), 100)
        let filter = Self.selection(session: session, seqs: seqs, times: times, table: "e").map { "AND " + $0 }.joined(separator: " ")
        return try read { db in
            let span = try Row.fetchOne(db, sql: "SELECT min(time), max(time) FROM events AS e WHERE time IS NOT NULL \(filter)")
            // Infinite times or a span beyond Double's range (a damaged log) have no stretches.
            guard let low = try span?.optional(0, "events.time", as: Double.self), let high = try span?.optional(1, "events.time", as: Double.self),
                  low <= high, (high - low).isFinite
            else { return nil }
            let width = (high - low) / Double(buckets)
            let rows = try Row.fetchAll(db, sql: """
                SELECT min(?, max(0, CAST((e.time - ?) / ? AS INTEGER))) AS bucket, a.name, src.file || ':' || src.line || ' ' || src.function, count(*)
                FROM events AS e JOIN actions AS a ON a.id = e.action_id JOIN sources AS src ON src.id = e.source_id
                WHERE e.time BETWEEN ? AND ? \(filter)
                GROUP BY bucket, e.action_id, e.source_id
                """, arguments: [buckets - 1, low, width > 0 ? width : 1, low, high])
            let counts = try rows.map { row in
                (bucket: try row.required(0, "events.time", as: Int.self), actionCase: try row.required(1, "actions.name", as: String.self),
                 source: try row.required(2, "sources.file", as: String.self), count: try row.required(3, "events", as: Int.self))
            }
            return LogActivity(start: low, bucketSeconds: width, buckets: buckets, top: top, counts: counts)
        }
    }
}
