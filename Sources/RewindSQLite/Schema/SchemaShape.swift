import GRDB
import RewindLogCore

/// The tables, views and columns a log of the latest schema has, checked when a log is opened:
/// a file that claims the latest version but lacks one (a dropped table or column, by damage or
/// by hand) is refused as damaged, naming what is missing, instead of failing later with
/// SQLite's "no such column" in the middle of a read.
///
/// The expected shape is not a hand-kept list: it is read from an empty in-memory database
/// brought up by the same migrations, so it follows the schema by construction.
struct SchemaShape: Sendable {
    /// Columns by table or view name.
    var columns: [String: [String]]

    /// What the embedded migrations make (`nil` if they could not run in memory, which only a
    /// broken build could cause; the check is then skipped).
    static let latest: SchemaShape? = {
        guard let queue = try? DatabaseQueue() else { return nil }
        return try? queue.writeWithoutTransaction { db in
            try SchemaMigrator.migrate(db, path: ":memory:")
            return try of(db, path: ":memory:")
        }
    }()

    static func of(_ db: Database, path: String) throws -> SchemaShape {
        var columns: [String: [String]] = [:]
        let names = try String.fetchAll(db, sql: "SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%'")
        for name in names {
            do {
                columns[name] = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [name])
            } catch let error as DatabaseError {
                // A view over a column or table that is gone.
                throw EventLogError.corrupt(path: path, detail: "\(name) cannot be read (\(error.message ?? "\(error.resultCode)"))")
            }
        }
        return SchemaShape(columns: columns)
    }

    /// Throws `EventLogError.corrupt(path:detail:)` naming the first table, view or column of
    /// the latest schema that `db` lacks. Extra ones are allowed.
    static func check(_ db: Database, path: String) throws {
        guard let latest else { return }
        let found = try of(db, path: path)
        for table in latest.columns.keys.sorted() {
            guard let columns = found.columns[table] else {
                throw EventLogError.corrupt(path: path, detail: "the \(table) table is missing")
            }
            let have = Set(columns)
            if let missing = latest.columns[table]?.first(where: { !have.contains($0) }) {
                throw EventLogError.corrupt(path: path, detail: "the \(table) table has no \(missing) column")
            }
        }
    }
}
