import GRDB
@testable import RewindLogCore
@testable public import RewindSQLite

extension EventLog {
    /// Makes this log's own connection (the one its recorder writes with) report SQLITE_FULL, as
    /// a full disk would, once the file needs another page: SQLite's `max_page_count`.
    public func simulateFullDisk() throws {
        let pages = try database.read { db in try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0 }
        try database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA max_page_count = \(pages)") }
    }

    /// Gives the connection room again after ``simulateFullDisk()``.
    public func freeDiskSpace() throws {
        try database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA max_page_count = 1073741823") }
    }
}
