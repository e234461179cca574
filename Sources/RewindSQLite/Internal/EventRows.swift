import Foundation
import GRDB
import GRDBSQLite

/// The `events` rows one write inserts, several to a statement: `INSERT … VALUES (…), (…), …`.
///
/// SQLite's work per statement — opening the table and its index, reading and writing the
/// `AUTOINCREMENT` counter in `sqlite_sequence`, ending the statement — is about half of what a
/// one-row insert costs: the bench's raw loop inserted binary rows in 1.34 ms per 1,000 one a
/// statement and in 0.68 ms twenty a statement (`rewind-bench --workload record`). Rows wait
/// here until a statement's worth has come, then go in together; what is left at the end goes
/// in statements of 16, 8, 4, 2 and 1 rows, so that a small batch gains too and at most six
/// statements are ever prepared.
struct EventRows {
    /// One event's columns, as bound.
    struct Row {
        enum Payload {
            case none
            /// The id of its row in `payloads` (``SharedPayloads``).
            case shared(Int64)
            /// The bytes as stored: text for a text codec, else a blob.
            case inline(Data, isText: Bool)
        }

        var seq: Int64
        var session: Int64
        var time: Double
        var actionID: Int64
        var payload: Payload
        var sourceID: Int64
        var info: String?
        var redaction: String?
        var causeDistance: Int64?
        var rootDistance: Int64?
    }

    /// Rows a statement holds at most; statements hold a power of two of them.
    static let perStatement = 32
    private static let columns = 10

    /// The statement inserting `rows` rows.
    static func sql(rows: Int) -> String {
        let row = "(" + repeatElement("?", count: columns).joined(separator: ", ") + ")"
        return "INSERT INTO events (seq, session_id, time, action_id, payload, source_id, info, redaction, cause_distance, root_distance) VALUES "
            + repeatElement(row, count: rows).joined(separator: ", ")
    }

    /// Each statement's text, by its count of rows (1, 2, 4, … ``perStatement``): made once,
    /// and GRDB's cache of statements keeps each prepared.
    private static let statements: [Int: String] = Dictionary(
        uniqueKeysWithValues: sequence(first: 1) { $0 < perStatement ? $0 * 2 : nil }.map { ($0, sql(rows: $0)) }
    )

    private let db: Database
    private var pending: [Row] = []
    /// The statements used, to let go of the values bound to them at the end.
    private var used: Set<Int> = []

    init(_ db: Database) {
        self.db = db
        pending.reserveCapacity(Self.perStatement)
    }

    /// Bytes of payloads waiting, beyond which they go in at once: binding copies each payload
    /// into SQLite, so a statement's worth of large ones would hold many copies at once.
    static let pendingBytesLimit = 256 * 1024
    private var pendingBytes = 0

    /// Adds a row, inserting the rows waiting once there are a statement's worth (or their
    /// payloads pass ``pendingBytesLimit``).
    mutating func add(_ row: consuming Row) throws {
        if case let .inline(bytes, _) = row.payload { pendingBytes += bytes.count }
        // Taken, not copied (its payload and texts retained and released once more).
        pending.append(row)
        if pending.count == Self.perStatement || pendingBytes >= Self.pendingBytesLimit { try flush() }
    }

    /// Inserts every row waiting, in order.
    mutating func flush() throws {
        var start = 0
        while start < pending.count {
            // The largest statement the rest fills.
            var size = Self.perStatement
            while size > pending.count - start { size /= 2 }
            try insert(pending[start..<start + size])
            start += size
        }
        pending.removeAll(keepingCapacity: true)
        pendingBytes = 0
    }

    /// Inserts every row waiting, and clears the statements' bound values, so that a cached
    /// statement does not hold copies of payloads until the next write.
    mutating func finish() throws {
        try flush()
        for size in used {
            if let sql = Self.statements[size] { sqlite3_clear_bindings(try db.cachedStatement(sql: sql).sqliteStatement) }
        }
    }

    private mutating func insert(_ rows: ArraySlice<Row>) throws {
        guard let sql = Self.statements[rows.count] else { preconditionFailure("statements hold a power of two of rows") }
        let statement = try db.cachedStatement(sql: sql)
        used.insert(rows.count)
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        var index: Int32 = 1
        for row in rows {
            Self.bind(row, to: handle, at: index)
            index += Int32(Self.columns)
        }
        let code = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard code == SQLITE_DONE else {
            // Named by one row's statement and the count: the whole text repeats it up to 32 times.
            throw RawBinding.error(code, stepping: statement, named: rows.count == 1 ? nil : Self.sql(rows: 1) + ", … (\(rows.count) rows)", in: db)
        }
    }

    private static func bind(_ row: Row, to handle: OpaquePointer, at first: Int32) {
        sqlite3_bind_int64(handle, first, row.seq)
        sqlite3_bind_int64(handle, first + 1, row.session)
        sqlite3_bind_double(handle, first + 2, row.time)
        sqlite3_bind_int64(handle, first + 3, row.actionID)
        switch row.payload {
        case .none: sqlite3_bind_null(handle, first + 4)
        case let .shared(id): sqlite3_bind_int64(handle, first + 4, id)
        case let .inline(bytes, isText): RawBinding.bind(payload: bytes, isText: isText, to: handle, at: first + 4)
        }
        sqlite3_bind_int64(handle, first + 5, row.sourceID)
        RawBinding.bind(text: row.info, to: handle, at: first + 6)
        RawBinding.bind(text: row.redaction, to: handle, at: first + 7)
        bind(row.causeDistance, to: handle, at: first + 8)
        bind(row.rootDistance, to: handle, at: first + 9)
    }

    private static func bind(_ value: Int64?, to handle: OpaquePointer, at index: Int32) {
        if let value { sqlite3_bind_int64(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }
}
