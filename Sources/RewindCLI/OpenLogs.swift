import Foundation
import RewindLog
#if PostgreSQL
import RewindPostgres
#endif
import Synchronization

/// The logs this process keeps open across calls, by the log argument that names them: every
/// command reads through ``LogOptions/open()``, which takes a kept log before opening one.
///
/// - **Stores' logs** (`rewind state postgres://…?log=…`) are opened once, before the command
///   runs, by ``LogOptions/prepare()``: a `PostgresLogReader` over a connection of its own, kept
///   for the process's life (the command's, or `rewind serve`'s, which a server restart does not
///   end: the reader connects again). Nothing is copied, nothing is left behind.
/// - **Files** are kept by `rewind serve` (``keepFile(_:keys:)``), whose page asks every second:
///   one read-only connection sees each commit a recorder makes meanwhile. A log of an older
///   schema is read through a migrated copy (made once, not per call, and unlinked at once); it
///   is copied again when the file changes, at most every ``recopyInterval``. A file replaced
///   at the same path (a new demo) is opened anew.
enum OpenLogs {
    private static let stores = Mutex<[String: any LogReader]>([:])
    private static let files = Mutex<[String: KeptFile]>([:])

    /// How often a kept log of an older schema is copied again while its file changes.
    static let recopyInterval: Duration = .seconds(2)

    /// A file's log, and what its file looked like when it was opened.
    private struct KeptFile {
        let log: EventLog
        let keys: LogKeys
        var look: FileLook?
        var readsCopy: Bool
        var openedAt: ContinuousClock.Instant
    }

    /// The kept log `argument` names, if any: a store's, or a file's (opened anew first when
    /// its file was replaced, or changed under a copy).
    static func log(_ argument: String) throws -> (any LogReader)? {
        if let store = stores.withLock({ $0[argument] }) { return store }
        return try files.withLock { files -> (any LogReader)? in
            guard var kept = files[argument] else { return nil }
            let look = FileLook(path: argument)
            let replaced = look?.file != kept.look?.file
            let changedUnderCopy = kept.readsCopy && look != kept.look && ContinuousClock.now - kept.openedAt >= recopyInterval
            if replaced || changedUnderCopy {
                kept = try open(argument, keys: kept.keys)
                files[argument] = kept
            }
            return kept.log
        }
    }

    /// Opens the log `url` names (its `log=` or `install=`, or the store's only log).
    static func openStore(_ url: String, keys: LogKeys) async throws {
        if stores.withLock({ $0[url] }) != nil { return }
        #if PostgreSQL
        let location = try StoreURL.parse(url)
        let reader = try await PostgresLogReader.open(location, keys: keys)
        stores.withLock { $0[url] = reader }
        #else
        throw InputError("\(LogLocation.redacted(url)): this rewind was built without PostgreSQL (the PostgreSQL trait)")
        #endif
    }

    /// Opens the log file `path` read-only and keeps it for every later ``log(_:)``.
    @discardableResult
    static func keepFile(_ path: String, keys: LogKeys) throws -> any LogReader {
        let kept = try open(path, keys: keys)
        files.withLock { $0[path] = kept }
        return kept.log
    }

    /// Closes the kept log of file `path`, if any (its next use opens the file anew).
    static func forget(_ path: String) {
        let kept = files.withLock { $0.removeValue(forKey: path) }
        try? kept?.log.close()
    }

    /// Opens the file at `path` read-only: a log, or a sealed report (``FieldReport``) read as
    /// one — the one place a command tells them apart, by the report's first bytes.
    static func readFile(_ path: String, keys: LogKeys) throws(EventLogError) -> EventLog {
        guard FieldReport.isReport(at: path) else { return try EventLog(path: path, mode: .readOnly, keys: keys) }
        return try EventLog.openingReport(at: path, keys: keys).log
    }

    private static func open(_ path: String, keys: LogKeys) throws -> KeptFile {
        // Looked at before opening: a commit between the two makes the next call look again.
        let look = FileLook(path: path)
        let log = try readFile(path, keys: keys)
        return KeptFile(log: log, keys: keys, look: look, readsCopy: try log.schemaVersion() < EventLog.latestSchemaVersion, openedAt: .now)
    }
}

/// What a log file looks like from outside: which file the path names, and its size and time
/// with its write-ahead log's.
private struct FileLook: Equatable {
    var file: [Int]
    var changes: [Int]

    init?(path: String) {
        func look(_ path: String) -> (identity: [Int], change: [Int])? {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return nil }
            let identity = [(attributes[.systemNumber] as? NSNumber)?.intValue ?? 0, (attributes[.systemFileNumber] as? NSNumber)?.intValue ?? 0]
            let time = (attributes[.modificationDate] as? Date).map { Int($0.timeIntervalSince1970 * 1_000_000) } ?? 0
            return (identity, [(attributes[.size] as? NSNumber)?.intValue ?? 0, time])
        }
        guard let main = look(path) else { return nil }
        file = main.identity
        changes = main.change + (look(path + "-wal")?.change ?? [])
    }
}
