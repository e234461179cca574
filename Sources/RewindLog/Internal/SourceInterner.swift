import GRDB
import Synchronization

/// Gives each distinct call site one row in `sources`, remembering ids so an event costs one
/// dictionary look-up rather than a query.
final class SourceInterner: Sendable {
    struct Key: Hashable, Sendable {
        var file: String
        var function: String
        var line: UInt
        var column: UInt
        var origin: String
    }

    private let ids = Mutex<[Key: Int64]>([:])

    /// The id of `key`'s row, inserting it if needed. Call inside a write transaction.
    func id(for key: Key, in db: Database) throws -> Int64 {
        if let id = ids.withLock({ $0[key] }) { return id }
        try db.execute(
            sql: """
                INSERT INTO sources (file, function, line, "column", origin) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT DO NOTHING
                """,
            arguments: [key.file, key.function, Int64(key.line), Int64(key.column), key.origin]
        )
        let id = try Int64.fetchOne(
            db,
            sql: #"SELECT id FROM sources WHERE file = ? AND function = ? AND line = ? AND "column" = ? AND origin = ?"#,
            arguments: [key.file, key.function, Int64(key.line), Int64(key.column), key.origin]
        )!
        ids.withLock { $0[key] = id }
        return id
    }

    /// Forgets every id (after a rollback, ids inserted in it are gone).
    func forget() {
        ids.withLock { $0.removeAll() }
    }
}
