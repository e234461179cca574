import Foundation
import GRDB
public import RewindLogCore

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
