import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import RewindLogCore

/// Whether a session is being recorded, visible to every process that opens its log: the
/// process recording it holds an exclusive `flock` on `<log>-sessions/<uuid>.lock`, which the
/// kernel releases when the process dies, however it dies.
///
/// `flock` locks belong to an open file, not to a process, so two logs open on one file in one
/// process see each other's sessions as live too. Only a file on a local file system is
/// covered: over NFS or SMB `flock` may lock nothing, and then a session's writer looks dead
/// to others once it has been (see the Recording article).
final class SessionLock: Sendable {
    /// The lock file.
    let path: String
    private let descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// The folder beside the log that holds its sessions' lock files.
    static func folder(forLog log: String) -> String {
        log + "-sessions"
    }

    /// The lock file of session `uuid` of the log at `log`.
    static func path(forLog log: String, session uuid: String) -> String {
        (folder(forLog: log) as NSString).appendingPathComponent(uuid + ".lock")
    }

    /// Creates and locks session `uuid`'s lock file; the lock is held until ``release()`` or
    /// until this object goes (the descriptor is closed).
    ///
    /// - Throws: `EventLogError.readOnly(path:detail:)` when the file cannot be made or locked.
    static func acquire(log: String, session uuid: String) throws(EventLogError) -> SessionLock {
        let folder = folder(forLog: log)
        let path = path(forLog: log, session: uuid)
        var descriptor: Int32 = -1
        // Another writer removes the folder when its last lock goes (``release()``): between
        // making the folder and the file here, it may be gone again, so try a few times.
        for _ in 0..<8 where descriptor < 0 {
            if mkdir(folder, 0o700) != 0 && errno != EEXIST {
                throw failure(log, "cannot create the session lock folder \(folder)")
            }
            descriptor = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
            if descriptor < 0 && errno != ENOENT { break }
        }
        guard descriptor >= 0 else { throw failure(log, "cannot create the session lock \(path)") }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let error = failure(log, "cannot lock the session lock \(path)")
            close(descriptor)
            throw error
        }
        return SessionLock(path: path, descriptor: descriptor)
    }

    /// Lets go of the lock and removes its file, and the folder when it was the last: the
    /// session is no longer live, and a log no one records leaves nothing beside it.
    func release() {
        unlink(path)
        flock(descriptor, LOCK_UN)
        rmdir((path as NSString).deletingLastPathComponent)
    }

    /// What a dead writer's process left in a session's lock file: the crash hook's mark
    /// (``CrashHook``), or the hang watchdog's (``HangMark``).
    enum Mark {
        case crash(CrashMark)
        case hang(HangMark)

        /// The ending the session gets.
        var kind: SessionEnding.Kind {
            switch self {
            case .crash: .crashed
            case .hang: .hung
            }
        }

        /// When: the crash, or the moment the hang was found over the limit.
        var time: Double {
            switch self {
            case let .crash(mark): mark.time
            case let .hang(mark): mark.detected
            }
        }

        /// The mark as `sessions.crash` keeps it.
        var storedText: String {
            switch self {
            case let .crash(mark): mark.storedText
            case let .hang(mark): mark.storedText
            }
        }
    }

    /// The mark in session `uuid`'s lock file, if its process left a whole one; `nil` for an
    /// empty file, a missing one, or bytes that are not a mark. Reads at most one mark's size
    /// plus one byte, whatever the file holds.
    static func mark(log: String, session uuid: String) -> Mark? {
        // Not through a link, never waiting on a FIFO, and only from a regular file.
        let descriptor = open(path(forLog: log, session: uuid), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        var bytes = [UInt8](repeating: 0, count: CrashMark.size + 1)
        var count = 0
        while count < bytes.count {
            let read = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress! + count, buffer.count - count, off_t(count))
            }
            if read < 0 && errno == EINTR { continue }
            guard read > 0 else { break }
            count += read
        }
        let read = bytes.prefix(count)
        if let crash = CrashMark(bytes: read) { return .crash(crash) }
        return HangMark(bytes: read).map { .hang($0) }
    }

    /// Whether a process holds session `uuid`'s lock. A missing file means no one does (a
    /// session's writer makes it before the session is in the log, and removes it after the
    /// session's end is).
    static func isHeld(log: String, session uuid: String) -> Bool {
        // Non-blocking: a FIFO in its place would otherwise hold the writer that looks forever.
        let descriptor = open(path(forLog: log, session: uuid), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        if flock(descriptor, LOCK_EX | LOCK_NB) == 0 {
            flock(descriptor, LOCK_UN)
            return false
        }
        return errno == EWOULDBLOCK
    }

    /// Removes the lock file of a session found dead (and the folder, when it was the last).
    static func remove(log: String, session uuid: String) {
        unlink(path(forLog: log, session: uuid))
        rmdir(folder(forLog: log))
    }

    private static func failure(_ log: String, _ what: String) -> EventLogError {
        .readOnly(path: log, detail: "\(what): \(String(cString: strerror(errno)))")
    }
}
