import Foundation
import RewindLog
#if PostgreSQL
import RewindPostgres
#endif
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The logs of PostgreSQL stores this process reads (`rewind state postgres://…?log=…`), each
/// opened once, before the command runs, by ``LogOptions/prepare()``: every command (and each
/// of the inspector's calls) then reads it as it reads a file, through ``LogOptions/open()``.
///
/// Each is a read-only copy in a temporary file (`PostgresLog.readOnlyLog`), deleted when the
/// process exits: `exit` skips deinitialisers, so an `atexit` handler deletes them, and
/// Ctrl-C or a `kill` (which would end the process without it; `rewind serve` runs until one)
/// exits through it too.
enum StoreLogs {
    private static let opened = Mutex<[String: EventLog]>([:])
    /// The handlers of SIGINT and SIGTERM, kept for the process's life. Written once, by the
    /// one call that opened the first log (decided under `opened`'s lock), and never read.
    nonisolated(unsafe) private static var signalSources: [any DispatchSourceSignal] = []

    /// The log `url` names, once ``open(_:keys:json:)`` has opened it.
    static func log(_ url: String) -> EventLog? {
        opened.withLock { $0[url] }
    }

    /// Opens the log `url` names (its `log=` or `install=`, or the store's only log), with progress on a
    /// terminal while its sessions are copied.
    static func open(_ url: String, keys: LogKeys, json: Bool) async throws {
        if log(url) != nil { return }
        #if PostgreSQL
        let location: PostgresLocation
        do { location = try PostgresLocation(parsing: url) } catch { throw InputError(error.description) }
        let store = try await PostgresLog.open(location, mode: .readOnly)
        let line = ProgressLine(json: json)
        let log: EventLog
        do {
            log = try await line.around {
                try await store.readOnlyLog(keys: keys) { progress in
                    line.update("reading the store: \(progress.events) of \(progress.eventsTotal) events")
                }
            }
        } catch {
            await store.close()
            throw error
        }
        await store.close()
        let first = opened.withLock { logs in
            defer { logs[url] = log }
            return logs.isEmpty
        }
        if first { cleanUpAtExit() }
        #else
        throw InputError("\(LogOptions.redacted(url)): this rewind was built without PostgreSQL (the PostgreSQL trait)")
        #endif
    }

    /// Deletes the copies when the process exits, or is interrupted or terminated.
    private static func cleanUpAtExit() {
        atexit { StoreLogs.closeAll() }
        let sources = [(SIGINT, Int32(130)), (SIGTERM, Int32(143))].map { signalNumber, status in
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { exit(status) }
            source.resume()
            return source
        }
        signalSources = sources
    }

    /// Closes every log, deleting its temporary file.
    private static func closeAll() {
        let logs = opened.withLock { logs in
            defer { logs.removeAll() }
            return Array(logs.values)
        }
        for log in logs { log.discardCopy() }
    }
}
