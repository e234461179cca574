import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import GRDB
package import RewindLogCore

extension EventLog: RecordingLog {
    package func write(session: LogSession, events: Int, _ encode: LogWrite.Encoding) throws(EventLogError) -> ClosedRange<Int64>? {
        // The log's own codec instance (a codec with symbols keeps them per log file) and the
        // session's key. Encoding happens inside the transaction, so new symbols get ids under
        // the write lock.
        let storage = try storage(for: session)
        // The recorder's writer checkpoints once it has caught up (`checkpoint()`).
        checkpoints.deferring.store(true, ordering: .relaxed)
        return try writeEncoding { db in
            try insert(try LogWrite.all(encode, codec: storage.codec), into: storage, in: db)
        }
    }

    /// The app's own log stays open (the app closes it); one the writer opened again in place
    /// is the writer's to close.
    package func recorderFinished() {
        checkpoints.deferring.store(false, ordering: .relaxed)
        if openedForRecorder.load(ordering: .acquiring) {
            try? close()
        } else if wantsCheckpoint {
            try? checkpoint()
        }
    }

    package var wantsCheckpoint: Bool {
        checkpoints.isWanted
    }

    /// A session in the clear stores its snapshots deflated (``SessionStorage/snapshotColumns(_:deflation:seq:)``).
    package var deflatesSnapshots: Bool { true }

    /// A passive checkpoint, as SQLite runs at 1,000 pages: it never waits for readers.
    package func checkpoint() throws(EventLogError) {
        try mappingErrors(path: path) {
            try database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)") }
        }
        checkpoints.walPages.store(0, ordering: .relaxed)
    }

    /// The session's lock file, opened again for writing: the crash hook writes its mark there,
    /// and ``markAbandonedSessions(_:)`` reads it before removing the file.
    package func crashMarkDescriptor(for session: LogSession) -> Int32? {
        guard let uuid = try? database.read({ db in try String.fetchOne(db, sql: "SELECT uuid FROM sessions WHERE id = ?", arguments: [session.id]) }),
              let lock = sessionLocks.withLock({ $0[uuid] })
        else { return nil }
        let descriptor = open(lock.path, O_WRONLY | O_CLOEXEC)
        return descriptor >= 0 ? descriptor : nil
    }

    package func takeMarkedSessions() -> [Int64] {
        markedSessions.withLock { sessions in
            defer { sessions.removeAll() }
            return sessions
        }
    }

    package var reportReader: (any LogReader)? { self }

    /// `<log>-reports`, beside the file.
    package var reportOutbox: ReportOutbox? { ReportOutbox(besideLog: path) }

    /// Whether the file at ``path`` is still the one opened: not deleted, not replaced.
    package var isInPlace: Bool {
        guard let openedFile else { return true }
        return FileIdentity(path: path) == openedFile
    }

    /// The log at the same path, with the same codecs and keys: created when the file was
    /// deleted, the new file when it was replaced.
    package func reopenedInPlace() throws(EventLogError) -> any RecordingLog {
        let reopened = try EventLog(path: path, codecs: codecs, keys: keys)
        reopened.openedForRecorder.store(true, ordering: .releasing)
        return reopened
    }
}
