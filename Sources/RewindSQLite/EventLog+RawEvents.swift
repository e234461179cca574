import Foundation
import GRDB
import GRDBSQLite
import Synchronization
public import RewindLogCore

extension EventLog {
    /// Calls `body` with each event of `session` from `first` through `last`, in order, until it
    /// returns `FoldStep.stop`, reading a page at a time through the raw statement — no join
    /// with sources, no row objects, no copies of payloads. This is replay's hot path: it is what
    /// lets folding run at the speed of decoding.
    ///
    /// Each page is its own read transaction, which also loads any new codec symbols. The first
    /// page is read on this thread; a walk longer than that, on a machine with more than one
    /// core, reads the rest ahead on a thread of its own while `body` runs on this one: stepping
    /// SQLite and decoding then take a core each. A log held in
    /// one read transaction (``readingConsistently(_:)``) reads on its connection's thread only,
    /// so it reads every page on this one.
    ///
    /// - Returns: Whether `body` stopped the walk.
    public func forEachRawEvent(
        session: Int64,
        from first: Int64,
        through last: Int64,
        _ body: (RawEvent) throws(EventLogError) -> FoldStep
    ) throws(EventLogError) -> Bool {
        guard first <= last else { return false }
        // A short walk (a launch's restore from its snapshot, a seek) starts no thread.
        let next: Int64
        switch try readPage(session: session, from: first, through: last, body) {
        case .stopped: return true
        case .ended: return false
        case let .more(from): next = from
        }
        guard Self.readsAhead, !holdsOneSnapshot.withLock({ $0 }) else {
            return try readPages(session: session, from: next, through: last, body)
        }
        Self.readAheadWalks.add(1, ordering: .relaxed)
        return try RawEventReadAhead.walk(reading: { [self] each throws(EventLogError) in
            _ = try readPages(session: session, from: next, through: last, each)
        }, body)
    }

    /// Reads page after page from `first` until `body` stops or the range ends.
    ///
    /// - Returns: Whether `body` stopped the walk.
    private func readPages(
        session: Int64, from first: Int64, through last: Int64, _ body: (RawEvent) throws(EventLogError) -> FoldStep
    ) throws(EventLogError) -> Bool {
        var next = first
        while true {
            switch try readPage(session: session, from: next, through: last, body) {
            case .stopped: return true
            case .ended: return false
            case let .more(from): next = from
            }
        }
    }

    /// Whether a long walk reads ahead on a thread of its own: with one core, the two threads
    /// would only take turns.
    private static let readsAhead = ProcessInfo.processInfo.activeProcessorCount > 1

    /// How many walks have read ahead in this process: what lets a test tell that a long walk
    /// did (its events alone would be the same either way).
    static let readAheadWalks = Atomic<Int>(0)

    /// How a page's read ended.
    private enum PageEnd {
        /// `body` returned `.stop`.
        case stopped
        /// The range has no more events.
        case ended
        /// A full page: the walk goes on from this seq.
        case more(from: Int64)
    }

    /// Reads one page of up to 8,192 events from `first`, in one read transaction.
    private func readPage(
        session: Int64, from first: Int64, through last: Int64, _ body: (RawEvent) throws(EventLogError) -> FoldStep
    ) throws(EventLogError) -> PageEnd {
        let pageSize = 8_192
        // A payload stored once for every event that repeats it comes through the join (a
        // primary-key probe, only for references). Measured: a bounded cache of shared payloads
        // in memory instead halved reading and decoding 1M todo actions.
        let sql = """
            SELECT e.seq, e.action_id, e.payload, e.redaction, p.bytes FROM events AS e LEFT JOIN payloads AS p ON p.id = e.payload
            WHERE e.seq BETWEEN ? AND ? AND +e.session_id = ? ORDER BY e.seq LIMIT ?
            """
        var lastRead: Int64?
        var count = 0
        var stopped = false
        try mappingErrors(path: path) {
            try inReadTransaction { db in
                try refreshSymbols(db)
                let names = try actions.values(in: db)
                let statement = try db.cachedStatement(sql: sql)
                let handle = statement.sqliteStatement
                sqlite3_reset(handle)
                sqlite3_bind_int64(handle, 1, first)
                sqlite3_bind_int64(handle, 2, last)
                sqlite3_bind_int64(handle, 3, session)
                sqlite3_bind_int64(handle, 4, Int64(pageSize))
                defer { sqlite3_reset(handle) }
                // One event for the page, its fields set per row: made per row, each row
                // retained and released the page's names, and copied the event (about 3 %
                // of reading and decoding a binary log, profiled).
                var event = RawEvent(seq: 0, actionID: 0, names: names, payload: nil, redaction: nil)
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
                    var payload: UnsafeRawBufferPointer?
                    switch sqlite3_column_type(handle, 2) {
                    case SQLITE_NULL:
                        break
                    case SQLITE_INTEGER:
                        // A reference: the shared row's bytes, joined in.
                        guard sqlite3_column_type(handle, 4) != SQLITE_NULL else {
                            throw SharedPayloads.missing(sqlite3_column_int64(handle, 2), seq: seq)
                        }
                        payload = Self.bytes(of: handle, column: 4)
                    default:
                        // Blob or text. (A real number, only from tampering, reads as its
                        // text and fails to decode.)
                        payload = Self.bytes(of: handle, column: 2)
                    }
                    (event.seq, event.actionID, event.payload, event.redaction) = (seq, id, payload, redaction)
                    if try body(event) == .stop {
                        stopped = true
                        return
                    }
                }
            }
        }
        if stopped { return .stopped }
        // A short page is the last; a seq at the top of the range has no successor.
        guard let lastRead, count == pageSize, lastRead < last else { return .ended }
        return .more(from: lastRead + 1)
    }

    /// A blob or text column's bytes, valid until the next step.
    private static func bytes(of statement: OpaquePointer, column: Int32) -> UnsafeRawBufferPointer {
        let bytes = sqlite3_column_blob(statement, column)
        let length = Int(sqlite3_column_bytes(statement, column))
        return UnsafeRawBufferPointer(start: bytes ?? UnsafeRawPointer(bitPattern: 1), count: length)
    }
}
