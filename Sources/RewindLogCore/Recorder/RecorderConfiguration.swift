public import Foundation
import Rewind

/// How a ``Recorder`` records.
///
/// ```swift
/// var configuration = RecorderConfiguration<AppState, AppAction>()
/// configuration.durability = .buffered(maxDelay: .milliseconds(50))
/// configuration.snapshotInterval = 500
/// configuration.redaction = Redaction { _ in .keep }.scrubbing(\.session.token, with: nil)
/// configuration.onFailure = { failure in logger.error("\(failure)") }
/// ```
public struct RecorderConfiguration<State: Sendable, Action: Sendable>: Sendable {
    /// When dispatched actions are committed to the file.
    public enum Durability: Sendable, Equatable {
        /// Commit in the background at least every `maxDelay`. Every commit is synced to disk
        /// (SQLite's `synchronous = FULL`), so a process crash or a power cut loses only the
        /// actions not yet committed — never one that `flush()` returned for. Those are the ones
        /// dispatched in about the last `maxDelay`: the writer commits at least that often (sooner
        /// when a batch fills), plus the time a commit under way takes, or longer if the
        /// writer's thread is starved. Dispatch never waits for the disk (only for room in the
        /// buffer).
        case buffered(maxDelay: Duration)
        /// Commit each action, with SQLite's `synchronous = FULL`, before the store processes
        /// the next one: the thread that processes an action waits for its commit.
        ///
        /// - `dispatch` on an idle store returns after its action is committed.
        /// - A `dispatch` that queues behind another action (the store is busy on another
        ///   thread, or an effect's action is being processed) returns at once; its action is
        ///   committed when the store reaches it.
        /// - `await store.send(action)` resumes only once its action is committed, whichever
        ///   thread processed it.
        /// - On a store that commits nothing for ``RecorderConfiguration/stallLimit``, dispatch
        ///   stops waiting: the action stays buffered until the store answers.
        ///
        /// A committed action survives a crash and a power cut. For tests and apps where every
        /// action matters.
        case synchronous
    }

    /// When actions are committed. Default: buffered, at least every 100 ms.
    public var durability: Durability = .buffered(maxDelay: .milliseconds(100))
    /// Snapshot the state after every this many actions, so replay can start near any point
    /// (0 turns periodic snapshots off; the initial snapshot is always taken).
    public var snapshotInterval = 1_000
    /// How much periodic snapshots may cost next to the events, in bytes written (encoding time
    /// follows bytes). After `snapshotInterval` actions, a snapshot is taken only once the
    /// events written since the previous one are at least `1 / snapshotBudget` times its size.
    ///
    /// A small state still gets a snapshot every `snapshotInterval` actions. A state that grows
    /// (messages, orders, history) gets them further apart as it grows, so that with the
    /// default 0.5 all snapshots together take about half what the events take, however long
    /// the session — at a fixed interval their cost would grow with the square of its length.
    /// The writer weighs each snapshot after the fact and may lag a burst of dispatches by a
    /// buffer, so a growing state dispatched at full speed can take more for a while (in the
    /// benchmark, about two thirds of the events' bytes over 100,000 actions). A seek then
    /// decodes one snapshot and folds events worth about twice its bytes. Retention cuts at a snapshot, so sparser snapshots let it keep up to one
    /// spacing's worth of events more than its limit. `.infinity` snapshots every
    /// `snapshotInterval` actions whatever the cost; 0 (or less, or NaN) takes no periodic
    /// snapshots.
    public var snapshotBudget = 0.5
    /// How many actions may wait for the writer; when it is full, dispatch waits for room
    /// rather than dropping anything — unless the store is stuck (see ``stallLimit``). Two
    /// buffers of this size are reserved up front (the one being filled and the one being
    /// written), so that handing an action off never allocates. An item is about the size of
    /// the action plus its `ActionSource` (a state waiting to be snapshotted is boxed): 256
    /// bytes for the example shop, so the default's two buffers take 2 MB. 4,096 actions are
    /// two seconds of a store dispatching 2,000 a second, far more than one commit takes; raise
    /// it for a store that dispatches faster than its log commits for longer than that, lower
    /// it to trade that slack for memory.
    public var bufferCapacity = 4_096
    /// How long dispatch waits on a stuck store. While the buffer is full, dispatch waits for
    /// room as long as the store keeps committing, however slowly (nothing is dropped). When
    /// the writer has committed nothing for this long, encoding aside (a snapshot encoded
    /// counts as progress), the store counts as stuck (a lock held
    /// elsewhere, a server that stopped answering): the actions dispatched from then on are
    /// let go, so that the app never waits longer than this on its store, and they are counted
    /// in a gap (``EventLogError/stalled(path:seconds:)``, also reported to `onFailure`).
    /// Recording resumes, in a new session from the live state, once the store answers again.
    /// A `.synchronous` dispatch waits for its commit at most this long on a stuck store too:
    /// its action then stays buffered, committed when the store answers, so only `flush()`
    /// (which, with `close()`, still waits for the store) says it is on disk.
    /// `.seconds(.max)` waits as long as the store takes.
    public var stallLimit: Duration = .seconds(2)
    /// The most events one transaction writes; also how many buffered events make the writer
    /// commit at once instead of waiting out a buffered durability's `maxDelay`. The writer
    /// takes at most this many from the buffer at a time (and a snapshot to encode with at
    /// most an eighth of this many), so a dispatch waiting for room waits for one such commit.
    /// While dispatch outruns the writer (a dispatch waits for room, or soon would), it takes
    /// fewer: what its last commits say it commits in about 8 ms, at least a sixteenth of this,
    /// so that a dispatch in a burst waits for a shorter commit than a whole batch's.
    public var batchSize = 2_048
    /// How actions and states are encoded.
    public var codec: any PayloadCodec = JSONPayloadCodec()
    /// What must never reach the disk: which actions, notes and parts of the state.
    public var redaction: Redaction<State, Action> = .none
    /// How much history to keep, checked after commits: by default ``Retention/default`` (about
    /// 14 days, at most about 4 MB of payloads). `nil` keeps everything — an explicit choice,
    /// for a tool or a server, never a phone's default.
    public var retention: Retention? = .default
    /// Free-form JSON kept with the session (device, build, …).
    public var sessionInfo: String?
    /// Where the shapes of the action and state types recorded with each session come from,
    /// so that a later build can say what changed in them (``SchemaDrift``). By default only
    /// the shapes `@BinaryCodable` generates: a recorder runs inside a shipped app, where
    /// probing — running the app's own `init(from:)` on placeholder values at launch — could
    /// trap on a `!` or a precondition. Types without the macro are recorded as opaque; set
    /// `.generatedOrProbed` to probe them (in debug builds, say), or `.none`.
    public var typeShapes: SessionShapes.Source = .generatedOnly
    /// Whether a crash marks the session being recorded (``CrashHook``): the recorder installs
    /// the hook's signal handlers, once per process, and the next writer of the log records the
    /// session as ended by a crash, with the signal and where it struck
    /// (``SessionEnding/Kind/crashed``). On by default; the cost on the dispatch path is one
    /// relaxed store per action. `false` installs nothing.
    public var crashMarks = true
    /// The hang watchdog's limit (``HangMark``): a store inside one action — its reducer, and
    /// the middleware hooks between the recorder's `willReduce` and `didReduce` — for longer
    /// than this marks its session. A process that never comes out of the action (the system
    /// or the user ends it) leaves the session ``SessionEnding/Kind/hung`` at the next launch,
    /// with the action's case and source (the mark is written where crash marks are: off with
    /// ``crashMarks``). With ``reports`` on, a hang is reported either way: at the next launch,
    /// or, when the action ends, as a trigger like an error action. By default 2 seconds; the
    /// cost on the dispatch path is a few stores and loads of counters per action and no lock
    /// (the copy of the action it keeps, to name it, is the one the recorder hands off); its
    /// two hand-shakes with the watchdog's thread are plain where Linux has `membarrier`, a full
    /// memory fence each elsewhere, Apple platforms included. Measured on Linux only: the
    /// default recorder dispatched 5 to 13% fewer shop actions a second than with the watchdog
    /// off (`rewind-bench --workload dispatch --runs 5 --actions 300000`: the median of the
    /// runs' ratios 0.95, the ratio of the median rates 0.87). `nil` watches nothing. A pause in a debugger counts.
    public var hangLimit: Duration? = .seconds(2)
    /// Reports from the field (``FieldReport``): with the team's public key set here, each
    /// session that ended in a crash is sealed into a report in the outbox
    /// (``ReportOptions/outbox``) by the writer that finds it, at the next launch — on the
    /// writer thread, never the app's. `nil` (the default: there is no key to seal to) makes
    /// none; crash marks are kept either way.
    public var reports: ReportOptions?
    /// The actions the app marks as errors (a failed payment, an answer the app did not
    /// expect): with ``reports`` on, the first one of a session seals a report — its window
    /// before the action, and ``ReportOptions/eventsAfterTrigger`` actions after it (fewer when
    /// the session ends first: a suspension or `close()`). Asked on the writer thread, of each
    /// action written, never on the dispatch path. `nil` (the default) asks nothing.
    public var errorActions: (@Sendable (Action) -> Bool)?
    /// The invariants checked in the field (``FieldInvariants``): with ``reports`` on, the first
    /// action of a session after which one fails seals a report, as an error action does.
    /// Checked on the writer thread, on a state of its own folded with the app's reducer,
    /// never on the dispatch path. `nil` (the default) checks nothing.
    public var invariants: FieldInvariants<State, Action>?
    /// The clock that stamps events (inject a fixed one in tests).
    public var clock: @Sendable () -> Date = { Date() } {
        didSet { stampsWithSystemClock = false }
    }
    /// Whether ``clock`` is the system's, which the dispatch path then reads without a call
    /// through the closure (``EventStamp``).
    @usableFromInline var stampsWithSystemClock = true
    /// Receives every failure to record, with the actions that are not in the log, in order.
    /// Called on a serial queue of the recorder's own (or, once the recorder is closed, on the
    /// dispatching thread), never on the writer thread: a handler may call `flush()` or
    /// `close()`, or dispatch into the store, without deadlocking. `flush()` and `close()`
    /// return only after the handler has seen every failure before them. By default it prints
    /// to standard error.
    public var onFailure: @Sendable (RecorderFailure<Action>) -> Void = { failure in
        FileHandle.standardError.write(Data("rewind: \(failure)\n".utf8))
    }

    /// The defaults: JSON, buffered within 100 ms, a snapshot every 1,000 actions.
    public init() {}
}
