import Foundation
import RewindLog
#if PostgreSQL
import RewindPostgres
#endif
import Synchronization

/// The logs of PostgreSQL stores this process reads (`rewind state postgres://…?log=…`), each
/// opened once, before the command runs, by ``LogOptions/prepare()``: every command (and each
/// of the inspector's calls) then reads it in place, as it reads a file, through
/// ``LogOptions/open()``.
///
/// Each is a `PostgresLogReader` over a connection of its own, kept for the process's life
/// (the command's, or `rewind serve`'s, which a server restart does not end: the reader
/// connects again): nothing is copied, and nothing is left behind.
enum StoreLogs {
    private static let opened = Mutex<[String: any LogReader]>([:])

    /// The log `url` names, once ``open(_:keys:)`` has opened it.
    static func log(_ url: String) -> (any LogReader)? {
        opened.withLock { $0[url] }
    }

    /// Opens the log `url` names (its `log=` or `install=`, or the store's only log).
    static func open(_ url: String, keys: LogKeys) async throws {
        if log(url) != nil { return }
        #if PostgreSQL
        let location: PostgresLocation
        do { location = try PostgresLocation(parsing: url) } catch { throw InputError(error.description) }
        let reader = try await PostgresLogReader.open(location, keys: keys)
        opened.withLock { $0[url] = reader }
        #else
        throw InputError("\(LogLocation.redacted(url)): this rewind was built without PostgreSQL (the PostgreSQL trait)")
        #endif
    }
}
