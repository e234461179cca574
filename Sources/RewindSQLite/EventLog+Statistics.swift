import Foundation
import GRDB
public import RewindLogCore

extension EventLog {
    /// Counts per action case and per source location, the time span, and sizes. The size on
    /// disk is the file's, whatever is selected.
    ///
    /// - Parameters:
    ///   - session: Only this session's events (`nil`: all).
    ///   - seqs: Only events in this seq range.
    ///   - times: Only events in this time window (seconds since 1970).
    public func statistics(session: Int64?, seqs: ClosedRange<Int64>?, times: ClosedRange<Double>?) throws(EventLogError) -> LogStatistics {
        let conditions = Self.selection(session: session, seqs: seqs, times: times, table: "e")
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let windowed = seqs != nil || times != nil
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
            let snapshotConditions = Self.selection(session: session, seqs: seqs, times: times, table: "p")
            let snapshots = try Row.fetchOne(db, sql: "SELECT count(*) AS n, coalesce(sum(length(state)), 0) AS bytes FROM snapshots AS p"
                + (snapshotConditions.isEmpty ? "" : " WHERE " + snapshotConditions.joined(separator: " AND ")))!
            // A window counts the sessions it holds events of; otherwise every session, with
            // events or not.
            let sessionCount = windowed
                ? try Int.fetchOne(db, sql: "SELECT count(DISTINCT e.session_id) FROM events AS e \(filter)") ?? 0
                : try Int.fetchOne(db, sql: "SELECT count(*) FROM sessions" + (session.map { " WHERE id = \($0)" } ?? "")) ?? 0
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

    /// SQL conditions on `table`'s `session_id`, `seq` and `time` (events and snapshots have
    /// all three), from numbers only.
    static func selection(session: Int64?, seqs: ClosedRange<Int64>?, times: ClosedRange<Double>?, table: String) -> [String] {
        var conditions: [String] = []
        if let session { conditions.append("\(table).session_id = \(session)") }
        if let seqs { conditions.append("\(table).seq BETWEEN \(seqs.lowerBound) AND \(seqs.upperBound)") }
        // Shortest round-trip text of a finite Double; an infinite bound is no bound.
        if let times {
            if times.lowerBound.isFinite { conditions.append("\(table).time >= \(times.lowerBound)") }
            if times.upperBound.isFinite { conditions.append("\(table).time <= \(times.upperBound)") }
        }
        return conditions
    }
}
