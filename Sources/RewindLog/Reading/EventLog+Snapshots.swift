import Foundation
import GRDB

extension EventLog {
    /// The latest snapshot of `session` at or before `seq` (the latest of all without `seq`).
    ///
    /// - Parameters:
    ///   - session: The id of the session whose snapshots to search.
    ///   - seq: The event the snapshot must not be after.
    /// - Returns: The snapshot, or `nil` when the session has none that early.
    public func snapshot(session: Int64, atOrBefore seq: Int64 = .max) throws(EventLogError) -> LoggedSnapshot? {
        try read { db in
            try refreshSymbols(db)
            return try Row.fetchOne(
                db,
                sql: "SELECT session_id, seq, time, kind, state FROM snapshots WHERE session_id = ? AND seq <= ? ORDER BY seq DESC LIMIT 1",
                arguments: [session, seq]
            ).map(Self.snapshot(from:))
        }
    }

    /// Where `session`'s snapshots are (seq, kind and time; not the states), in seq order.
    public func snapshotIndex(session: Int64) throws(EventLogError) -> [(seq: Int64, kind: String, time: Double)] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT seq, kind, time FROM snapshots WHERE session_id = ? ORDER BY seq", arguments: [session])
                .map { (seq: $0["seq"], kind: $0["kind"], time: $0["time"]) }
        }
    }

    private static func snapshot(from row: Row) -> LoggedSnapshot {
        let value: DatabaseValue = row["state"]
        let state = Data.fromDatabaseValue(value) ?? String.fromDatabaseValue(value).map { Data($0.utf8) } ?? Data()
        return LoggedSnapshot(session: row["session_id"], seq: row["seq"], time: row["time"], kind: row["kind"], state: state)
    }
}
