import GRDB
import Synchronization

/// The `actions` table in memory: writers turn a case path into its id (inserting it the first
/// time), readers turn ids back into case paths.
///
/// Ids are dense (rowids, never deleted or reused), so the names are an array indexed by id:
/// the replay path resolves an event's case without hashing.
final class ActionNames: Sendable {
    private struct Contents {
        var ids: [String: Int64] = [:]
        /// `names[id - 1]`, for every id read or written so far (empty for ids not yet seen).
        var names: [String] = []
        /// Every id up to this one is in `names` (read from the table in order).
        var loadedThrough: Int64 = 0

        mutating func remember(_ name: String, id: Int64) {
            ids[name] = id
            let index = Int(id) - 1
            guard index >= 0 else { return }
            if names.count <= index { names.append(contentsOf: repeatElement("", count: index + 1 - names.count)) }
            names[index] = name
        }
    }

    private let contents = Mutex(Contents())

    /// The id of `name`, inserting it if needed. Call inside a write transaction.
    func id(for name: String, in db: Database) throws -> Int64 {
        if let id = contents.withLock({ $0.ids[name] }) { return id }
        try db.execute(sql: "INSERT INTO actions (name) VALUES (?) ON CONFLICT DO NOTHING", arguments: [name])
        let id = try Int64.fetchOne(db, sql: "SELECT id FROM actions WHERE name = ?", arguments: [name])!
        contents.withLock { $0.remember(name, id: id) }
        return id
    }

    /// Every case path by id (`names[id - 1]`), including those other connections added, as of
    /// the caller's transaction.
    func names(in db: Database) throws -> [String] {
        let known = contents.withLock { $0.loadedThrough }
        let rows = try Row.fetchAll(db, sql: "SELECT id, name FROM actions WHERE id > ? ORDER BY id", arguments: [known])
        return contents.withLock { contents in
            for row in rows { contents.remember(row["name"], id: row["id"]) }
            if let last = rows.last { contents.loadedThrough = max(contents.loadedThrough, last["id"]) }
            return contents.names
        }
    }

    /// Forgets every id (after a rollback, names inserted in it are gone).
    func forget() {
        contents.withLock { $0 = Contents() }
    }
}
