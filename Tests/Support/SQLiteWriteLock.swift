import Foundation
import GRDB

/// Another connection holding a log file's write lock (`BEGIN IMMEDIATE`), as a second writer
/// in a long transaction does: the log's own writer waits on it (up to its busy timeout) until
/// ``release()``.
public final class SQLiteWriteLock: Sendable {
    private let queue: DatabaseQueue

    /// Takes the lock on the file at `path`.
    public init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        // The transaction stays open across accesses, by design.
        configuration.allowsUnsafeTransactions = true
        queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.inDatabase { db in try db.execute(sql: "BEGIN IMMEDIATE") }
    }

    /// Lets the lock go (ends the transaction, changing nothing).
    public func release() throws {
        try queue.inDatabase { db in try db.execute(sql: "ROLLBACK") }
    }
}
