import Foundation
import GRDB
import GRDBSQLite

/// One event as the replay fast path sees it: its position, case and encoded payload, borrowed
/// from SQLite's buffer for the duration of the callback. Internal: the borrowed memory never
/// leaves RewindLog; ``SessionReader`` decodes it in place.
struct RawEvent {
    /// The event's seq.
    var seq: Int64
    /// Its case path's id in the log's table of case paths, `names[id - 1]`.
    var actionID: Int
    var names: [String?]
    /// The encoded action, or `nil` (withheld or unencodable).
    var payload: UnsafeRawBufferPointer?
    /// Why there is no payload, if there is none.
    var redaction: String?

    /// The case path, looked up only when asked for (in replay, for errors): most events never
    /// need it. An id outside the table only comes from a damaged file.
    var actionCase: String {
        (actionID >= 1 && actionID <= names.count ? names[actionID - 1] : nil) ?? "action #\(actionID)"
    }
}

extension EventLog {
    /// Calls `body` with each event of `session` from `first` through `last`, in order, until it
    /// returns ``FoldStep/stop``, reading a page at a time through the raw statement — no join
    /// with sources, no row objects, no copies of payloads. This is replay's hot path: it is what
    /// lets folding run at the speed of decoding.
    ///
    /// Each page is its own read transaction, which also loads any new codec symbols.
    ///
    /// - Returns: Whether `body` stopped the walk.
    func forEachRawEvent(
        session: Int64,
        from first: Int64,
        through last: Int64,
        pageSize: Int = 8_192,
        _ body: (RawEvent) throws(EventLogError) -> FoldStep
    ) throws(EventLogError) -> Bool {
        let sql = """
            SELECT seq, action_id, payload, redaction FROM events
            WHERE seq BETWEEN ? AND ? AND +session_id = ? ORDER BY seq LIMIT ?
            """
        var next = first
        while next <= last {
            var lastRead: Int64?
            var count = 0
            var stopped = false
            try mappingErrors(path: path) {
                try database.read { db in
                    try refreshSymbols(db)
                    let names = try actions.values(in: db)
                    let statement = try db.cachedStatement(sql: sql)
                    let handle = statement.sqliteStatement
                    sqlite3_reset(handle)
                    sqlite3_bind_int64(handle, 1, next)
                    sqlite3_bind_int64(handle, 2, last)
                    sqlite3_bind_int64(handle, 3, session)
                    sqlite3_bind_int64(handle, 4, Int64(pageSize))
                    defer { sqlite3_reset(handle) }
                    while true {
                        let code = sqlite3_step(handle)
                        if code == SQLITE_DONE { break }
                        guard code == SQLITE_ROW else {
                            throw RawBinding.error(code, stepping: statement, in: db)
                        }
                        let seq = sqlite3_column_int64(handle, 0)
                        let id = Int(truncatingIfNeeded: sqlite3_column_int64(handle, 1))
                        let redaction = sqlite3_column_text(handle, 3).map { String(cString: $0) }
                        lastRead = seq
                        count += 1
                        let step: FoldStep
                        switch sqlite3_column_type(handle, 2) {
                        case SQLITE_NULL:
                            step = try body(RawEvent(seq: seq, actionID: id, names: names, payload: nil, redaction: redaction))
                        case SQLITE_INTEGER:
                            // A payload stored once for every event that repeats it.
                            let shared = sqlite3_column_int64(handle, 2)
                            guard let bytes = try sharedPayloads.bytes(of: shared, in: db) else { throw SharedPayloads.missing(shared, seq: seq) }
                            step = try bytes.withUnsafeBytes { payload in
                                try body(RawEvent(seq: seq, actionID: id, names: names, payload: payload, redaction: redaction))
                            }
                        default:
                            // Blob or text: either way the bytes, valid until the next step. (A
                            // real number, only from tampering, reads as its text and fails to decode.)
                            let bytes = sqlite3_column_blob(handle, 2)
                            let length = Int(sqlite3_column_bytes(handle, 2))
                            let payload = UnsafeRawBufferPointer(start: bytes ?? UnsafeRawPointer(bitPattern: 1), count: length)
                            step = try body(RawEvent(seq: seq, actionID: id, names: names, payload: payload, redaction: redaction))
                        }
                        if step == .stop {
                            stopped = true
                            return
                        }
                    }
                }
            }
            if stopped { return true }
            // A short page is the last; a seq at the top of the range has no successor.
            guard let lastRead, count == pageSize, lastRead < last else { return false }
            next = lastRead + 1
        }
        return false
    }
}
