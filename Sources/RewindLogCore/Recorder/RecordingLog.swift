package import Foundation

/// What the recorder's writer needs from the log it records into: the SQLite `EventLog` (the
/// embedded default), or a PostgreSQL store (RewindPostgres). Every method is synchronous and
/// called from the writer thread (the session a store's binding asks for too: an app's main
/// thread never waits on it).
///
/// A log assigns seqs as it writes: each event the next of the log's, so a session's order is
/// the order its batches were written in.
package protocol RecordingLog: AnyObject, Sendable {
    /// How errors name the log: a file's path, a store's URL without its password.
    var path: String { get }

    /// Begins a session holding `initialState` (already scrubbed).
    func beginSession<State: Encodable>(
        app: AppIdentity, codec: any PayloadCodec, initialState: State, info: String?, shapes: SessionShapes, at date: Date
    ) throws(EventLogError) -> LogSession

    /// Writes, in one transaction, the rows `encode` makes with the session's codec — events,
    /// each with the next seq, and snapshots of the state after the last event before them —
    /// and moves the session's bounds along. `encode` hands the rows over in parts
    /// (``LogWrite/Encoding``), `events` of them events, known before encoding (an action
    /// whose payload cannot be encoded is still a row). `encode` may run more than once (a
    /// retried transaction); each run starts afresh.
    ///
    /// - Returns: The seqs the events got; `nil` when there were none.
    func write(session: LogSession, events: Int, _ encode: LogWrite.Encoding) throws(EventLogError) -> ClosedRange<Int64>?

    /// Records `gap` and begins the session recording resumes in, from `state`, in one
    /// transaction: either both are in the log or neither is.
    func recordGap<State: Encodable>(
        _ gap: LogGap, resumingWith app: AppIdentity, codec: any PayloadCodec, state: State, info: String?, shapes: SessionShapes, at date: Date
    ) throws(EventLogError) -> LogSession

    /// Records `gap` where recording never resumed (the recorder closed first).
    func recordGap(_ gap: LogGap) throws(EventLogError)

    /// Records that session `id` ended — its recorder closed it (``SessionEnding/Kind/closed``)
    /// or the app was suspended (``SessionEnding/Kind/suspended``) — and lets go of its lock:
    /// it is no longer live.
    func endSession(_ id: Int64, as kind: SessionEnding.Kind, at date: Date) throws(EventLogError)

    /// Applies `retention`, removing about `limit` events at most (more only where no snapshot
    /// lets it cut sooner), so that a long backlog costs the writer a bounded pause per check;
    /// returns how many it removed and whether the log is now within `retention`.
    func trim(to retention: Retention, now: Date, removingAtMost limit: Int) throws(EventLogError) -> (removed: Int, isComplete: Bool)

    /// A file descriptor, open for writing, of the file where the crash hook marks `session`
    /// (``CrashHook``) and the log's next writer looks for the mark; the caller closes it.
    /// `nil` when the log keeps no crash marks.
    func crashMarkDescriptor(for session: LogSession) -> Int32?

    /// The sessions this log has marked `crashed` or `hung` since it was last asked (their
    /// writers died in a crash the hook saw, or inside an action the hang watchdog saw), each
    /// named once: to the writer whose transaction marked it,
    /// which seals its report (``RecorderConfiguration/reports``).
    func takeMarkedSessions() -> [Int64]

    /// The log as a reader, for sealing reports; `nil` when it cannot be read so.
    var reportReader: (any LogReader)? { get }

    /// Where reports of this log wait by default: beside a log file; `nil` for a store (an app
    /// recording into one names its outbox, ``ReportOptions/outbox``).
    var reportOutbox: ReportOutbox? { get }

    /// Whether a checkpoint the writer's commits put off is due: a file's write-ahead log is
    /// checkpointed by the writer once it has caught up with the app, not inside a commit a
    /// dispatch may be waiting for (see the SQLite log's `CheckpointDeferral`). A store has none.
    var wantsCheckpoint: Bool { get }

    /// Runs the checkpoint ``wantsCheckpoint`` asks for.
    func checkpoint() throws(EventLogError)

    /// Whether the log stores a snapshot of a session in the clear deflated
    /// (``SnapshotCompression``): the recorder then has a snapshot it holds back deflated where
    /// it is encoded, off the writer's thread (``LogWrite/snapshot(time:state:seq:deflation:)``).
    var deflatesSnapshots: Bool { get }

    /// Whether a periodic snapshot that follows events is written in their transaction rather
    /// than beginning one of its own (see `RecorderWriter.takeCount`). A store's transaction
    /// costs round trips whatever it holds, and two per snapshot interval instead of one cost
    /// its recorder about a fifth of its rate; a file's costs a sync, and its longest
    /// dispatch waiting for room rose by about half when its snapshots went in with a take's
    /// events (`rewind-bench --workload defaults`: the take's commit then holds both), so a file
    /// keeps them apart.
    var writesSnapshotsWithEvents: Bool { get }

    /// Whether the log sends a batch's rows as the writer encodes them, a part at a time
    /// (``LogWrite/Encoding``): a store over a network takes one part while the writer encodes
    /// the next. Otherwise the writer encodes a batch in one part: a file writes it at once,
    /// and parts would only cost it copies (about a tenth of the file recorder's rate, when
    /// it had them).
    var sendsRowsInParts: Bool { get }

    /// The recorder is done with this log: a log that belongs to it alone (a store's connection
    /// made for it, a file it opened again by ``reopenedInPlace()``) lets go of what it holds.
    func recorderFinished()

    /// Whether the log is still what its location names: `false` once a file was deleted or
    /// replaced under it. The writer then counts what it could not write as a gap and records
    /// on in ``reopenedInPlace()``. A store's lost connection is an ordinary failed write: it
    /// stays in place.
    var isInPlace: Bool { get }

    /// A log opened (or created) anew where this one was, after it stopped being in place; it
    /// belongs to the recorder, which calls ``recorderFinished()`` on it when done with it.
    func reopenedInPlace() throws(EventLogError) -> any RecordingLog
}

extension RecordingLog {
    /// A log that cannot vanish from under its writer: a store's.
    package var isInPlace: Bool { true }

    /// A store keeps no crash marks (a PostgreSQL store's sessions end `unclean` after a crash).
    package func crashMarkDescriptor(for session: LogSession) -> Int32? { nil }

    package func takeMarkedSessions() -> [Int64] { [] }
    package var wantsCheckpoint: Bool { false }
    package var writesSnapshotsWithEvents: Bool { false }
    package var sendsRowsInParts: Bool { false }
    package func checkpoint() throws(EventLogError) {}
    package var reportReader: (any LogReader)? { nil }
    package var reportOutbox: ReportOutbox? { nil }

    package func reopenedInPlace() throws(EventLogError) -> any RecordingLog {
        throw .failed(path: path, reason: "the log cannot be opened again in place")
    }
}
