package import Foundation
import Synchronization

/// A log the recorder's writer thread opens at its first use — creating, migrating and checking
/// the file there, not on the thread that made the recorder (an app's main thread at launch).
///
/// Every ``RecordingLog`` method runs on the writer thread, so the first of them (the session a
/// binding asks for) opens it. When opening fails (a full disk, a log from a newer Rewind), that
/// method throws the reason: the session cannot begin, which is reported to `onFailure`, and
/// each later batch tries again, the actions meanwhile a gap (see `RecorderWriter`).
package final class OpeningLog: RecordingLog {
    package let path: String
    private let open: @Sendable () throws(EventLogError) -> any RecordingLog
    private let opened = Mutex<(any RecordingLog)?>(nil)

    /// - Parameters:
    ///   - path: How errors name it before it is open.
    ///   - open: Opens it; the log it returns belongs to the recorder, which calls
    ///     ``recorderFinished()`` on it when done.
    package init(path: String, open: @escaping @Sendable () throws(EventLogError) -> any RecordingLog) {
        self.path = path
        self.open = open
    }

    /// The log once opened.
    package var current: (any RecordingLog)? {
        opened.withLock { $0 }
    }

    /// The log, opened now if it is not yet.
    private func log() throws(EventLogError) -> any RecordingLog {
        if let log = opened.withLock({ $0 }) { return log }
        let log = try open()
        opened.withLock { $0 = log }
        return log
    }

    package func beginSession<State: Encodable>(
        app: AppIdentity, codec: any PayloadCodec, initialState: State, info: String?, shapes: SessionShapes, at date: Date
    ) throws(EventLogError) -> LogSession {
        try log().beginSession(app: app, codec: codec, initialState: initialState, info: info, shapes: shapes, at: date)
    }

    package func write(session: LogSession, events: Int, _ encode: LogWrite.Encoding) throws(EventLogError) -> ClosedRange<Int64>? {
        try log().write(session: session, events: events, encode)
    }

    package func recordGap<State: Encodable>(
        _ gap: LogGap, resumingWith app: AppIdentity, codec: any PayloadCodec, state: State, info: String?, shapes: SessionShapes, at date: Date
    ) throws(EventLogError) -> LogSession {
        try log().recordGap(gap, resumingWith: app, codec: codec, state: state, info: info, shapes: shapes, at: date)
    }

    package func recordGap(_ gap: LogGap) throws(EventLogError) {
        try log().recordGap(gap)
    }

    package func endSession(_ id: Int64, as kind: SessionEnding.Kind, at date: Date) throws(EventLogError) {
        try log().endSession(id, as: kind, at: date)
    }

    package func trim(to retention: Retention, now: Date, removingAtMost limit: Int) throws(EventLogError) -> (removed: Int, isComplete: Bool) {
        try log().trim(to: retention, now: now, removingAtMost: limit)
    }

    package func recorderFinished() {
        opened.withLock { $0 }?.recorderFinished()
    }

    package func crashMarkDescriptor(for session: LogSession) -> Int32? {
        opened.withLock { $0 }?.crashMarkDescriptor(for: session)
    }

    package func takeMarkedSessions() -> [Int64] {
        opened.withLock { $0 }?.takeMarkedSessions() ?? []
    }

    package var wantsCheckpoint: Bool {
        opened.withLock { $0 }?.wantsCheckpoint ?? false
    }

    package func checkpoint() throws(EventLogError) {
        try opened.withLock { $0 }?.checkpoint()
    }

    package var reportReader: (any LogReader)? {
        opened.withLock { $0 }?.reportReader
    }

    /// Known before it is opened: an opening log is a file's, and its outbox is beside it.
    package var reportOutbox: ReportOutbox? {
        opened.withLock { $0 }?.reportOutbox ?? ReportOutbox(besideLog: path)
    }

    /// A log not yet opened has no session whose snapshots it deflates.
    package var deflatesSnapshots: Bool {
        opened.withLock { $0 }?.deflatesSnapshots ?? false
    }

    /// A log not yet opened has nothing to vanish from under it.
    package var isInPlace: Bool {
        opened.withLock { $0 }?.isInPlace ?? true
    }

    package func reopenedInPlace() throws(EventLogError) -> any RecordingLog {
        try log().reopenedInPlace()
    }
}
