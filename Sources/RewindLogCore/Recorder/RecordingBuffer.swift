public import Dispatch
import Foundation
public import Rewind
public import Synchronization

/// The hand-off between the dispatch path and the writer thread (its dispatch-side parts are
/// `@usableFromInline` so the recorder's hook specialises for the app's types): a bounded FIFO of actions (and
/// snapshot requests) plus the bookkeeping for waking the writer and the threads that wait on it.
///
/// The dispatch path appends under a `Mutex` and signals a semaphore only when the writer is
/// asleep; it allocates nothing unless it has to wait (buffer full, or synchronous durability),
/// but once per snapshot interval: the box of the state to snapshot, and the copies the next
/// reductions make of what they change in a state the writer still holds (two to three in all
/// for the shop: `rewind-allocations`).
/// The item array and the writer's spare both reserve the most items the buffer can hold, so
/// an append never grows an array whatever the writer's timing. The writer takes at most one
/// batch at a time, a state to encode beginning a take of its own (swapping the arrays when it
/// takes all), so room comes back a take at a time.
@usableFromInline
final class RecordingBuffer<State: Sendable, Action: Sendable>: Sendable {
    @usableFromInline
    enum Item: Sendable {
        case event(DispatchedAction<Action>, time: Double)
        // Boxed: an app's state is often hundreds of bytes, and inline it would size every
        // slot of both buffers, events included (the shop's item went from 464 bytes to the
        // event's own size). The box is an allocation once per snapshot interval, and holds
        // the encoding the writer may have made ahead (``PendingSnapshot``).
        case snapshot(PendingSnapshot<State>)
        /// The live state before the event after it, asked for after a failed write: recording
        /// resumes from it in a new session.
        indirect case freshState(State, time: Double)

        /// Whether it is an action (not a state to encode).
        var isEvent: Bool {
            if case .event = self { true } else { false }
        }
    }

    @usableFromInline
    enum WriterState: Sendable {
        case working, idle, coalescing
    }

    /// Whether the app asked the recorder to hold nothing (``Recorder/suspend()-54smz``).
    enum Suspension: Sendable {
        /// Recording as usual.
        case running
        /// Suspended, and the writer is to end the session it holds once what is buffered is
        /// written (asked by `suspend()`, and again after each write while suspended).
        case wanted
        /// Suspended, holding no session: the writer writes only when asked to (a flush, a full
        /// buffer, closing) until `resume()`.
        case done
    }

    /// Where the session a binding asked for stands.
    enum SessionBegin: Sendable {
        /// None asked for, or the writer has tried to begin it (begun, or failed and retried
        /// at the next batch).
        case none
        /// Asked for; the writer has not taken it yet.
        case wanted
        /// The writer is beginning it.
        case beginning
    }

    @usableFromInline
    struct Contents: Sendable {
        @usableFromInline var items: [Item] = []
        /// Events handed off so far; an event's ticket is the count after it.
        @usableFromInline var handedOff: UInt64 = 0
        /// Events whose batch has been written (committed, or reported as failed).
        var written: UInt64 = 0
        @usableFromInline var sinceSnapshot = 0
        /// The newest snapshot handed over that the writer has not seen yet: it has it encoded
        /// ahead (``PendingSnapshot``).
        @usableFromInline var snapshotToPrepare: PendingSnapshot<State>?
        /// After how many actions since the last snapshot the dispatch path hands over the
        /// state for the next; worked out from `snapshotForecast` at each hand-over (and when
        /// the writer publishes a new forecast), since the writer may lag a buffer behind.
        @usableFromInline var snapshotAfter: Int
        /// The writer's rule for spacing snapshots (see ``SnapshotSpacing``).
        @usableFromInline var snapshotForecast: SnapshotSpacing.Forecast
        @usableFromInline var writer = WriterState.working
        var lastCommit: ContinuousClock.Instant = .now
        /// When the writer last took work or committed: a full buffer whose writer has not
        /// been heard of for the `stallLimit` means a stuck store.
        @usableFromInline var busySince: ContinuousClock.Instant = .now
        /// The actions let go since the store was found stuck, until the writer takes the
        /// buffer again (see ``StalledActions``).
        @usableFromInline var stalled: StalledActions<Action>?
        /// Threads waiting for `written` to reach their ticket (flush, synchronous dispatch).
        @usableFromInline var writeWaiters: [(ticket: UInt64, semaphore: DispatchSemaphore)] = []
        /// Threads waiting for room in a full buffer.
        @usableFromInline var roomWaiters: [DispatchSemaphore] = []
        /// The first failure not yet thrown by `flush()`.
        @usableFromInline var unthrownFailure: EventLogError?
        /// Set by `close()`: accept nothing more, write what is left, stop.
        @usableFromInline var isClosing = false
        /// The session a store's binding asked for, which the writer begins before anything
        /// else (see ``RecorderWriter/beginSession(app:initialState:)``).
        var sessionBegin = SessionBegin.none
        /// Threads waiting for the writer to have tried to begin it (``Recorder/session``,
        /// ``Recorder/flush()-2pv67``).
        var beginWaiters: [DispatchSemaphore] = []
        /// See ``Suspension``.
        var suspension = Suspension.running
        /// Threads waiting in `suspend()` for the writer to hold nothing.
        var suspendWaiters: [DispatchSemaphore] = []
        /// Set by the writer as it exits, having ended its session.
        var writerGone = false
        /// Actions the hang watchdog found hung and that have since ended, by ticket: with
        /// reports on, triggers for the writer (``HangWatchdog``).
        @usableFromInline var endedHangs: [(ticket: UInt64, mark: HangMark)] = []

        init(itemCapacity: Int, snapshotForecast: SnapshotSpacing.Forecast) {
            items.reserveCapacity(itemCapacity)
            self.snapshotForecast = snapshotForecast
            snapshotAfter = snapshotForecast.interval
        }
    }

    @usableFromInline let contents: Mutex<Contents>
    /// Wakes the writer thread; signalled only by whoever moves `writer` out of idle/coalescing.
    @usableFromInline let wakeWriter = DispatchSemaphore(value: 0)
    /// Signalled once when the writer thread exits.
    let writerExited = DispatchSemaphore(value: 0)
    /// Set by the writer after a failed write; the next action's `willReduce` clears it and
    /// hands over the state before that action (``Item/freshState``), for the session recording
    /// resumes in. An atomic, so the dispatch path checks it without the lock.
    @usableFromInline let freshStateWanted = Atomic<Bool>(false)
    /// The crash hook's counters for the session being recorded; `nil` without crash marks
    /// (``RecorderConfiguration/crashMarks``).
    @usableFromInline let crashMarking: CrashMarking?
    /// The store's hang watchdog; `nil` without one (``RecorderConfiguration/hangLimit``).
    @usableFromInline let hangWatchdog: HangWatchdog<Action>?

    init(itemCapacity: Int, snapshotForecast: SnapshotSpacing.Forecast, crashMarking: CrashMarking? = nil, hangWatchdog: HangWatchdog<Action>? = nil) {
        contents = Mutex(Contents(itemCapacity: itemCapacity, snapshotForecast: snapshotForecast))
        self.crashMarking = crashMarking
        self.hangWatchdog = hangWatchdog
    }

    /// The most items the buffer holds: its capacity in events, plus the snapshot and the fresh
    /// state one of them may bring.
    static func itemCapacity(for configuration: RecorderConfiguration<State, Action>) -> Int {
        max(1, configuration.bufferCapacity) + 2
    }

    /// The seconds from now until `instant`, for a `DispatchTime`: never negative, and at most
    /// a year (a `stallLimit` of `.seconds(.max)` means never).
    @usableFromInline
    static func seconds(until instant: ContinuousClock.Instant) -> Double {
        min(max(0, (instant - ContinuousClock.now).inSeconds), 31_536_000)
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    @usableFromInline
    var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
