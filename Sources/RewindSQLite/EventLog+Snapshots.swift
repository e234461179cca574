import Foundation
import GRDB
public import RewindLogCore

extension EventLog {
    /// The latest snapshot of `session` at or before `seq` (the latest of all without `seq`).
    ///
    /// - Parameters:
    ///   - session: The id of the session whose snapshots to search.
    ///   - seq: The event the snapshot must not be after.
    /// - Returns: The snapshot, or `nil` when the session has none that early.
    public func snapshot(session: Int64, atOrBefore seq: Int64) throws(EventLogError) -> LoggedSnapshot? {
        try read { db in
            try refreshSymbols(db)
            return try Row.fetchOne(
                db,
                sql: """
                    SELECT p.session_id, p.seq, p.time, p.kind, p.state, s.key_id, p.compression FROM snapshots AS p LEFT JOIN sessions AS s ON s.id = p.session_id
                    WHERE p.session_id = ? AND p.seq <= ? ORDER BY p.seq DESC LIMIT 1
                    """,
                arguments: [session, seq]
            ).map { row throws in try Self.snapshot(from: row) }
        }
    }

    /// Where `session`'s snapshots are (seq, kind and time; not the states), in seq order.
    public func snapshotIndex(session: Int64) throws(EventLogError) -> [(seq: Int64, kind: String, time: Double)] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT seq, kind, time FROM snapshots WHERE session_id = ? ORDER BY seq", arguments: [session])
                .map { row throws in
                    (seq: try row.required("seq", in: "snapshots"), kind: try row.required("kind", in: "snapshots"), time: try row.time("time", in: "snapshots"))
                }
        }
    }

    private static func snapshot(from row: Row) throws -> LoggedSnapshot {
        let value: DatabaseValue = row["state"] ?? .null
        var state: Data
        switch value.storage {
        case let .blob(data): state = data
        case let .string(text): state = Data(text.utf8)
        default: throw RowDamage(column: "snapshots.state", expected: "a blob or text", found: value)
        }
        // Inflated here, so that every reader above (replay, verify, export, push) sees the
        // codec's bytes (or the seal's), as in a log written before schema 10.
        let session: Int64 = try row.required("session_id", in: "snapshots"), seq: Int64 = try row.required("seq", in: "snapshots")
        switch try row.optional("compression", in: "snapshots", as: String.self) {
        case nil: break
        case SnapshotCompression.name?:
            do { state = try SnapshotCompression.decompressed(state) } catch {
                throw RowDamage("session \(session)'s snapshot at seq \(seq): \(error)")
            }
        case let other?: throw RowDamage("session \(session)'s snapshot at seq \(seq) is compressed with '\(other)', which this build does not know")
        }
        return LoggedSnapshot(
            session: session, seq: seq,
            time: try row.time("time", in: "snapshots"), kind: try row.required("kind", in: "snapshots"), state: state,
            keyID: try row.optional("key_id", in: "sessions")
        )
    }
}
