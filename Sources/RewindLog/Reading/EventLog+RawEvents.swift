import Foundation
import GRDB
import GRDBSQLite

/// One event as the replay fast path sees it: its position, case and encoded payload, borrowed
/// from SQLite's buffer for the duration of the callback.
package struct RawEvent {
    /// The event's seq.
    package var seq: Int64
    /// Its case path, from the log's table of case paths (schema 4 on).
    package var actionName: String?
    /// Its case path in a log from before schema 4, as SQLite's C string (borrowed like the
    /// payload): most events never need it as a `String`, and making one per event was a
    /// measurable share of replay.
    package var actionCaseText: UnsafePointer<CChar>?
    /// The encoded action, or `nil` (withheld or unencodable).
    package var payload: UnsafeRawBufferPointer?
    /// Why there is no payload, if there is none.
    package var redaction: String?
}

extension RawEvent {
    /// Its case path (made on demand: for errors and reports).
    package var actionCase: String { actionName ?? actionCaseText.map { String(cString: $0) } ?? "" }

    /// Decodes the action in place.
    ///
    /// - Throws: ``EventLogError/decodingFailed(path:seq:actionCase:codingPath:reason:)`` naming
    ///   this seq, its case and where decoding failed, or why there is no payload.
    package func decodeAction<Action: Decodable>(as type: Action.Type, codec: any PayloadCodec, path: String) throws(EventLogError) -> Action {
        guard let payload else {
            throw LoggedEvent.missingPayload(path: path, seq: seq, actionCase: actionCase, redaction: redaction)
        }
        return try DecodingFailure.map(path: path, seq: seq, actionCase: actionCase) {
            try codec.decode(type, from: payload)
        }
    }
}

extension EventLog {
    /// Calls `body` with each event of `session` in `seqs`, in order, reading a page at a time
    /// through the raw statement — no join with sources, no row objects, no copies of payloads.
    /// This is replay's hot path: it is what lets folding run at the speed of decoding.
    ///
    /// Each page is its own read transaction, which also loads any new codec symbols.
    package func forEachRawEvent(
        session: Int64,
        in seqs: ClosedRange<Int64>,
        pageSize: Int = 8_192,
        _ body: (RawEvent) throws(EventLogError) -> Void
    ) throws(EventLogError) {
        var next = seqs.lowerBound
        let interned = actionsAreInterned
        let sql = """
            SELECT seq, \(interned ? "action_id" : "action"), payload, redaction FROM events
            WHERE seq BETWEEN ? AND ? AND +session_id = ? ORDER BY seq LIMIT ?
            """
        while next <= seqs.upperBound {
            var last: Int64?
            var count = 0
            try mappingErrors(path: path) {
                try database.read { db in
                    try refreshSymbols(db)
                    let names = interned ? try actions.names(in: db) : []
                    let statement = try db.cachedStatement(sql: sql)
                    let handle = statement.sqliteStatement
                    sqlite3_reset(handle)
                    sqlite3_bind_int64(handle, 1, next)
                    sqlite3_bind_int64(handle, 2, seqs.upperBound)
                    sqlite3_bind_int64(handle, 3, session)
                    sqlite3_bind_int64(handle, 4, Int64(pageSize))
                    defer { sqlite3_reset(handle) }
                    while true {
                        let code = sqlite3_step(handle)
                        if code == SQLITE_DONE { break }
                        guard code == SQLITE_ROW else {
                            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
                        }
                        let seq = sqlite3_column_int64(handle, 0)
                        var actionName: String?
                        var actionCase: UnsafePointer<CChar>?
                        if interned {
                            let id = Int(sqlite3_column_int64(handle, 1))
                            // An id outside the table only comes from a damaged file.
                            actionName = names.indices.contains(id - 1) ? names[id - 1] : "action #\(id)"
                        } else {
                            actionCase = sqlite3_column_text(handle, 1).map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }
                        }
                        var payload: UnsafeRawBufferPointer?
                        if sqlite3_column_type(handle, 2) != SQLITE_NULL {
                            // Blob or text: either way the bytes, valid until the next step.
                            let bytes = sqlite3_column_blob(handle, 2)
                            let length = Int(sqlite3_column_bytes(handle, 2))
                            payload = UnsafeRawBufferPointer(start: bytes ?? UnsafeRawPointer(bitPattern: 1), count: length)
                        }
                        let redaction = sqlite3_column_text(handle, 3).map { String(cString: $0) }
                        try body(RawEvent(seq: seq, actionName: actionName, actionCaseText: actionCase, payload: payload, redaction: redaction))
                        last = seq
                        count += 1
                    }
                }
            }
            guard let last, count == pageSize else { return }
            next = last + 1
        }
    }
}
