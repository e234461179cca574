import GRDB
import Synchronization
import RewindLogCore

/// A table that stores each distinct value once — call sites in `sources`, case paths in
/// `actions` — mirrored in memory: writing an event costs a comparison for a value looked up
/// lately (``RecentIDs``), else a dictionary look-up, rather than a query, and reading turns ids
/// back into values by indexing an array, without hashing.
///
/// Ids are rowids, dense and never reused (these rows are never deleted), so the values are an
/// array indexed by id. Inserting happens inside the caller's write transaction; if that
/// transaction rolls back, ``EventLog/forgetInterned()`` calls ``forget()`` and the ids it
/// inserted are looked up again next time. (The binary codec's symbols are the third interned
/// set; they live with the codec in RewindCodingCore and roll back through the same hook.)
final class InternedRows<Value: Hashable & Sendable>: Sendable {
    /// How a table stores its values.
    struct Table: Sendable {
        /// Inserts a value unless it is present (`… ON CONFLICT DO NOTHING`).
        var insert: String
        /// The id of a value.
        var selectID: String
        /// `id` and the value's columns of every row after an id, in id order.
        var selectAfter: String
        /// The value's columns, in the order `insert` and `selectID` bind them.
        var arguments: @Sendable (Value) -> StatementArguments
        /// A cheap function of a value that tells values apart often enough to choose a slot in
        /// ``RecentIDs`` (not a hash of all of it: that is the dictionary's work it saves).
        var slot: @Sendable (Value) -> Int
        /// The value of a row read by `selectAfter`.
        var value: @Sendable (Row) throws -> Value
    }

    private struct Contents {
        var ids: [Value: Int64] = [:]
        /// The values looked up lately, in front of `ids`.
        var recent = RecentIDs<Value>()
        /// `values[id - 1]`, for every id read or written so far (`nil` for ids not yet seen).
        var values: [Value?] = []
        /// Every id up to this one is in `values` (read from the table in order).
        var loadedThrough: Int64 = 0

        mutating func remember(_ value: Value, id: Int64) {
            ids[value] = id
            let index = Int(id) - 1
            guard index >= 0 else { return }
            if values.count <= index { values.append(contentsOf: repeatElement(nil, count: index + 1 - values.count)) }
            values[index] = value
        }
    }

    /// More distinct case paths or call sites than any app has; an id beyond it is damage.
    static var largestID: Int64 { 1 << 24 }

    private let table: Table
    private let contents = Mutex(Contents())

    init(_ table: Table) {
        self.table = table
    }

    /// The id of `value`'s row, inserting it if needed. Call inside a write transaction.
    func id(for value: Value, in db: Database) throws -> Int64 {
        let slot = table.slot(value)
        let known = contents.withLock { contents -> Int64? in
            if let id = contents.recent.id(for: value, slot: slot) { return id }
            guard let id = contents.ids[value] else { return nil }
            contents.recent.remember(value, id: id, slot: slot)
            return id
        }
        if let known { return known }
        let arguments = table.arguments(value)
        try db.execute(sql: table.insert, arguments: arguments)
        guard let id = try Int64.fetchOne(db, sql: table.selectID, arguments: arguments) else {
            throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "a row just inserted is missing", sql: table.selectID)
        }
        contents.withLock { $0.remember(value, id: id) }
        return id
    }

    /// Every value by id (`values[id - 1]`), including those other connections added, as of the
    /// caller's transaction.
    func values(in db: Database) throws -> [Value?] {
        let known = contents.withLock { $0.loadedThrough }
        let rows = try Row.fetchAll(db, sql: table.selectAfter, arguments: [known]).map { row in
            let id = try row.required("id", in: "interned rows", as: Int64.self)
            // Ids index an array: a tampered id of 10^12 must not become a 10^12-slot allocation.
            guard (1...Self.largestID).contains(id) else { throw RowDamage("an interned row has id \(id), outside 1…\(Self.largestID)") }
            return (value: try table.value(row), id: id)
        }
        return contents.withLock { contents in
            for row in rows { contents.remember(row.value, id: row.id) }
            if let last = rows.last { contents.loadedThrough = max(contents.loadedThrough, last.id) }
            return contents.values
        }
    }

    /// Forgets every id (after a rollback, rows inserted in it are gone).
    func forget() {
        contents.withLock { $0 = Contents() }
    }
}

extension InternedRows<SourceKey>.Table {
    /// `sources`: one row per distinct call site.
    static let sources = Self(
        insert: #"INSERT INTO sources (file, function, line, "column", origin) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING"#,
        selectID: #"SELECT id FROM sources WHERE file = ? AND function = ? AND line = ? AND "column" = ? AND origin = ?"#,
        selectAfter: #"SELECT id, file, function, line, "column", origin FROM sources WHERE id > ? ORDER BY id"#,
        // Clamped: an app may build a source by hand with any `UInt`; decoded ones are checked
        // (`ActionSource.init(from:)`), and a store's columns are signed 64-bit.
        arguments: { [$0.file, $0.function, Int64(clamping: $0.line), Int64(clamping: $0.column), $0.origin] },
        // Call sites differ by line and column far more often than not; the file and function
        // are compared when the slot holds a value.
        slot: { Int(truncatingIfNeeded: $0.line &* 97 &+ $0.column) },
        value: { row in
            SourceKey(
                file: try row.required("file", in: "sources"), function: try row.required("function", in: "sources"),
                line: UInt(clamping: try row.required("line", in: "sources", as: Int64.self)),
                column: UInt(clamping: try row.required("column", in: "sources", as: Int64.self)),
                origin: try row.required("origin", in: "sources")
            )
        }
    )
}

extension InternedRows<String>.Table {
    /// `actions`: one row per distinct case path.
    static let actions = Self(
        insert: "INSERT INTO actions (name) VALUES (?) ON CONFLICT DO NOTHING",
        selectID: "SELECT id FROM actions WHERE name = ?",
        selectAfter: "SELECT id, name FROM actions WHERE id > ? ORDER BY id",
        arguments: { [$0] },
        // Case paths differ in length or in their last character (the case's own name) far more
        // often than not; `utf8.count` and `last` are constant-time for a native string.
        slot: { $0.utf8.count &* 31 &+ Int($0.utf8.last ?? 0) },
        value: { try $0.required("name", in: "actions") }
    )
}
