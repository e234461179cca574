import Foundation
import GRDB

/// What a log holds, in numbers: for `rewind stats` and for people deciding on retention.
public struct LogStatistics: Sendable, Equatable {
    /// How often each action case occurs, most frequent first.
    public var actionCases: [(name: String, count: Int)]
    /// How often each source location dispatched, most frequent first.
    public var sources: [(location: String, count: Int)]
    /// Events, sessions and snapshots.
    public var events: Int, sessions: Int, snapshots: Int
    /// The first and last event times, in seconds since 1970.
    public var timeSpan: ClosedRange<Double>?
    /// Bytes on disk: the file plus its write-ahead log (for a store's log, what its rows take
    /// in the store).
    public var bytesOnDisk: Int
    /// Bytes of event payloads (a payload stored once for the events that repeat it counts
    /// once) and of snapshot states, as the store keeps them.
    public var payloadBytes: Int, snapshotBytes: Int

    /// Statistics as a store counted them.
    package init(
        actionCases: [(name: String, count: Int)], sources: [(location: String, count: Int)], events: Int, sessions: Int, snapshots: Int,
        timeSpan: ClosedRange<Double>?, bytesOnDisk: Int, payloadBytes: Int, snapshotBytes: Int
    ) {
        (self.actionCases, self.sources, self.events, self.sessions, self.snapshots) = (actionCases, sources, events, sessions, snapshots)
        (self.timeSpan, self.bytesOnDisk, self.payloadBytes, self.snapshotBytes) = (timeSpan, bytesOnDisk, payloadBytes, snapshotBytes)
    }

    public static func == (lhs: LogStatistics, rhs: LogStatistics) -> Bool {
        lhs.actionCases.map(\.name) == rhs.actionCases.map(\.name) && lhs.actionCases.map(\.count) == rhs.actionCases.map(\.count)
            && lhs.sources.map(\.location) == rhs.sources.map(\.location) && lhs.sources.map(\.count) == rhs.sources.map(\.count)
            && lhs.events == rhs.events && lhs.sessions == rhs.sessions && lhs.snapshots == rhs.snapshots
            && lhs.timeSpan == rhs.timeSpan && lhs.bytesOnDisk == rhs.bytesOnDisk
            && lhs.payloadBytes == rhs.payloadBytes && lhs.snapshotBytes == rhs.snapshotBytes
    }
}

extension EventLog {
    /// Counts per action case and per source location, the time span, and sizes.
    ///
    /// - Parameter session: Only this session's events (default: all).
    public func statistics(session: Int64?) throws(EventLogError) -> LogStatistics {
        let filter = session.map { "WHERE e.session_id = \($0)" } ?? ""
        let fileOnDisk = self.fileOnDisk
        return try read { db in
            let cases = try Row.fetchAll(db, sql: """
                SELECT a.name AS action, count(*) AS n FROM events AS e JOIN actions AS a ON a.id = e.action_id \(filter)
                GROUP BY e.action_id ORDER BY n DESC, action
                """).map { row throws in (name: try row.required("action", in: "actions", as: String.self), count: try row.required("n", in: "events", as: Int.self)) }
            let sources = try Row.fetchAll(db, sql: """
                SELECT src.file || ':' || src.line || ' ' || src.function AS location, count(*) AS n
                FROM events AS e JOIN sources AS src ON src.id = e.source_id \(filter)
                GROUP BY e.source_id ORDER BY n DESC, location
                """).map { row throws in (location: try row.required("location", in: "sources", as: String.self), count: try row.required("n", in: "events", as: Int.self)) }
            // A shared payload's bytes count once, however many events refer to it.
            let totals = try Row.fetchOne(db, sql: """
                SELECT count(*) AS n, min(time) AS first, max(time) AS last,
                       coalesce(sum(CASE WHEN typeof(payload) = 'integer' THEN 0 ELSE length(payload) END), 0)
                       + coalesce((SELECT sum(length(p.bytes)) FROM payloads AS p
                                   WHERE p.id IN (SELECT e.payload FROM events AS e \(filter.isEmpty ? "WHERE" : filter + " AND") typeof(e.payload) = 'integer')), 0)
                       AS bytes
                FROM events AS e \(filter)
                """)!
            let snapshots = try Row.fetchOne(db, sql: "SELECT count(*) AS n, coalesce(sum(length(state)), 0) AS bytes FROM snapshots"
                + (session.map { " WHERE session_id = \($0)" } ?? ""))!
            let sessionCount = try Int.fetchOne(db, sql: "SELECT count(*) FROM sessions" + (session.map { " WHERE id = \($0)" } ?? "")) ?? 0
            let first = try totals.optional("first", in: "events", as: Double.self), last = try totals.optional("last", in: "events", as: Double.self)
            let size = ["", "-wal"].reduce(0) { sum, suffix in
                sum + ((try? FileManager.default.attributesOfItem(atPath: fileOnDisk + suffix)[.size] as? Int) ?? 0)
            }
            return LogStatistics(
                actionCases: cases, sources: sources, events: try totals.required("n", in: "events"), sessions: sessionCount,
                snapshots: try snapshots.required("n", in: "snapshots"),
                // min and max of times: ordered unless a time is NaN, which `...` would trap on.
                timeSpan: first.flatMap { first in last.flatMap { first <= $0 ? first...$0 : nil } }, bytesOnDisk: size,
                payloadBytes: try totals.required("bytes", in: "events"), snapshotBytes: try snapshots.required("bytes", in: "snapshots")
            )
        }
    }
}
