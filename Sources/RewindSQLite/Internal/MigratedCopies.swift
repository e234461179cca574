import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The temporary files an older log is read through (`EventLog.migratedCopy`), kept from
/// outliving the process however it ends:
///
/// - a copy is unlinked as soon as it is migrated: the open connection reads it on, and the
///   file system frees it when the connection closes, or the process dies, however it dies;
/// - while it is being copied and migrated it has a name, listed here, which
///   ``removeInFlight()`` deletes (the `rewind` tool calls it on SIGINT, SIGTERM and SIGHUP);
/// - its name carries the process id, so a copy left by a process killed mid-copy (SIGKILL, a
///   power cut) is deleted by the next one made in the same folder (``sweep(_:)``).
enum MigratedCopies {
    static let prefix = "rewind-upgraded-"
    private static let inFlight = Mutex<Set<String>>([])

    /// A new path for a copy in the temporary folder, after deleting orphans there.
    static func newPath() -> String {
        let folder = FileManager.default.temporaryDirectory
        sweep(folder.path)
        return folder.appendingPathComponent("\(prefix)\(getpid())-\(UUID().uuidString).rewind").path
    }

    static func begin(_ path: String) { inFlight.withLock { _ = $0.insert(path) } }

    /// The copy is unlinked (or gone): nothing to remove on a signal any more.
    static func end(_ path: String) { inFlight.withLock { _ = $0.remove(path) } }

    /// Deletes the copies being made now. Called from a signal's handler (a Dispatch source,
    /// not the signal context), just before the process exits.
    static func removeInFlight() {
        for path in inFlight.withLock({ $0 }) { remove(path) }
    }

    /// Deletes the copy at `path` with SQLite's files beside it.
    static func remove(_ path: String) {
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(path + suffix) }
    }

    /// Deletes the copies in `folder` whose process is gone.
    static func sweep(_ folder: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names where name.hasPrefix(prefix) {
            guard let pid = pid_t(name.dropFirst(prefix.count).prefix { $0.isNumber }), pid > 0, pid != getpid() else { continue }
            // ESRCH: no such process. EPERM means it exists under another user: leave it.
            if kill(pid, 0) == -1 && errno == ESRCH {
                remove((folder as NSString).appendingPathComponent(name))
            }
        }
    }
}
