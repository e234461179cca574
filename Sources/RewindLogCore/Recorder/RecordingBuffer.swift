public import Dispatch
import Foundation
public import Rewind
public import Synchronization

/// The hand-off between the dispatch path and the writer thread (its dispatch-side parts are
/// `@usableFromInline` so the recorder's hook specialises for the app's types): a bounded FIFO of actions (and
/// snapshot requests) plus the bookkeeping for waking the writer and the threads that wait on it.
///
/// The FIFO is a ``HandOffRing``, which the dispatch path pushes to without a lock. Everything
/// else (waiters, the writer's state, a stall, closing) is under a `Mutex`, which the dispatch
/// path takes only when it has something to settle there: the writer to wake, no room, a
/// snapshot to hand over, a stall, a closing recorder, synchronous durability, a hang that
/// ended (``divert`` and ``wakeAt`` tell it, lock-free). Its hand-shakes with the writer's
/// sleeping and with closing are ``AsymmetricFence``s, whose cost falls on the writer.
/// It allocates nothing unless it has to wait (buffer full, or synchronous durability),
/// but once per snapshot interval: the box of the state to snapshot, and the copies the next
/// reductions make of what they change in a state the writer still holds (two to three in all
/// for the shop: `rewind-allocations`).
/// The ring and the writer's spare array both hold the most items the buffer can hold, so a
/// push never allocates whatever the writer's timing. The writer takes at most one batch at a
/// time (moving it out of the ring; see `RecorderWriter.takeCount`), so room comes back a take
/// at a time.
@usableFromInline
final class RecordingBuffer<State: Sendable, Action: Sendable>: @unchecked Sendable {
    // Unchecked: the `var`s below are the dispatch path's alone (one action at a time, as the
    // ring's producer); everything shared is atomic, or in `contents` under its lock.
    @usableFromInline
    enum Item: Sendable {
        case event(DispatchedAction<Action>, time: EventStamp)
        // Boxed: an app's state is often hundreds of bytes, and inline it would size every
        // slot of both buffers, events included (the shop's item went from 464 bytes to the
        // event's own size). The box is an allocation once per snapshot interval, and holds
        // the encoding the writer may have made ahead (``PendingSnapshot``).
        case snapshot(PendingSnapshot<State>)
        /// The live state before the event after it, asked for after a failed write: recording
        /// resumes from it in a new session.
        indirect case freshState(State, time: EventStamp)

        /// Whether it is an action (not a state to encode).
        var isEvent: Bool {
            if case .event = self { true } else { false }
        }

        var isSnapshot: Bool {
            if case .snapshot = self { true } else { false }
        }

        var isFreshState: Bool {
            if case .freshState = self { true } else { false }
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

    /// Why the dispatch path must take the lock for an action (bits of ``divert``).
    @usableFromInline
    enum Divert {
        /// The recorder is closing.
        @inlinable static var closing: UInt8 { 1 }
        /// The store is stuck: actions are let go (``Contents/stalled``).
        @inlinable static var stalled: UInt8 { 2 }
        /// The writer published a new snapshot forecast (``Contents/snapshotForecast``).
        @inlinable static var forecast: UInt8 { 4 }
    }

    @usableFromInline
    struct Contents: Sendable {
        /// Events whose batch has been written (committed, or reported as failed).
        var written: UInt64 = 0
        /// The writer's rule for spacing snapshots (see ``SnapshotSpacing``); a new one sets
        /// ``Divert/forecast``.
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
        /// Whether the writer holds back a snapshot whose encoding was not done when it reached
        /// it (`RecorderWriter.HeldSnapshot`): write waiters wait for it too, so that once a
        /// `flush()` returns, everything handed over is in the log.
        var snapshotHeld = false
        /// Whether the writer is asked for anything but more events — a flush, a close, a
        /// suspension, a session to begin, the actions let go on a stall — so that a snapshot
        /// is not held back (`RecorderWriter.HeldSnapshot`), and one held is written at once.
        /// Dispatches waiting for room do not count: the room is what holding one gives them.
        var asksForEverything: Bool {
            isClosing || !writeWaiters.isEmpty || !suspendWaiters.isEmpty || suspension != .running || stalled != nil
                || sessionBegin != .none
        }
        /// Threads waiting for room in a full buffer.
        @usableFromInline var roomWaiters: [DispatchSemaphore] = []
        /// The first failure not yet thrown by `flush()`.
        @usableFromInline var unthrownFailure: EventLogError?
        /// Set by `close()` (after ``Divert/closing``): accept nothing more, write what is
        /// left, stop.
        @usableFromInline var isClosing = false
        /// Set by the writer as it decides to exit, the ring empty: it takes nothing after.
        @usableFromInline var ringClosed = false
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

        init(snapshotForecast: SnapshotSpacing.Forecast) {
            self.snapshotForecast = snapshotForecast
        }
    }

    @usableFromInline let contents: Mutex<Contents>
    /// The actions, snapshots and fresh states handed off, in order.
    @usableFromInline let ring: HandOffRing<Item>
    /// ``Divert`` bits: when any is set, the dispatch path takes the lock. Set and cleared
    /// under it, but for ``Divert/closing``, set before it (see `Recorder.askToClose()`).
    @usableFromInline let divert = Atomic<UInt8>(0)
    /// The ring's `pushed` count at which the dispatch path must wake the writer (`Int.max`
    /// while it works): set by the writer before it sleeps, idle (the next push) or coalescing
    /// (a batch's worth).
    @usableFromInline let wakeAt = Atomic<Int>(.max)
    /// Events handed off so far, for other threads (`flush()`): stored after their push.
    @usableFromInline let handedOffCount = Atomic<UInt64>(0)
    @usableFromInline let fence = AsymmetricFence.process
    /// Hand-offs under way: more than one means two producers — the middleware bound to two
    /// stores dispatching at once (checked in debug builds only; the ring takes one producer).
    @usableFromInline let handOffsUnderWay = Atomic<Int>(0)
    /// The dispatch path's own: events handed off so far (an event's ticket is the count
    /// after it), actions since the last snapshot handed over, and after how many the next
    /// is due — worked out from the forecast at each hand-over and when the writer publishes
    /// a new one, since the writer may lag a buffer behind.
    @exclusivity(unchecked) @usableFromInline var handedOff: UInt64 = 0
    @exclusivity(unchecked) @usableFromInline var sinceSnapshot = 0
    @exclusivity(unchecked) @usableFromInline var snapshotAfter: Int
    /// Wakes the writer thread; signalled by whoever moves `writer` out of idle/coalescing, and
    /// by a snapshot's encoding ahead as it ends (the writer may hold that snapshot back). A
    /// signal with nothing to do costs the writer one turn of its loop.
    @usableFromInline let wakeWriter: DispatchSemaphore
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
    /// Has a snapshot encoded ahead, on a thread of its own, from the moment it is handed over
    /// (``PendingSnapshot``); `nil` for a codec with symbols.
    @usableFromInline let prepareSnapshot: (@Sendable (PendingSnapshot<State>) -> Void)?

    /// - Parameter prepareSnapshot: Has a snapshot encoded ahead, calling its second argument
    ///   once that is done: the writer is woken then, in case it went past the snapshot
    ///   (`RecorderWriter.HeldSnapshot`).
    init(
        itemCapacity: Int, snapshotForecast: SnapshotSpacing.Forecast, crashMarking: CrashMarking? = nil, hangWatchdog: HangWatchdog<Action>? = nil,
        prepareSnapshot: (@Sendable (PendingSnapshot<State>, _ ended: @escaping @Sendable () -> Void) -> Void)? = nil
    ) {
        contents = Mutex(Contents(snapshotForecast: snapshotForecast))
        ring = HandOffRing(size: itemCapacity)
        snapshotAfter = snapshotForecast.interval
        self.crashMarking = crashMarking
        self.hangWatchdog = hangWatchdog
        let wakeWriter = DispatchSemaphore(value: 0)
        self.wakeWriter = wakeWriter
        if let prepareSnapshot {
            let ended: @Sendable () -> Void = { wakeWriter.signal() }
            self.prepareSnapshot = { snapshot in prepareSnapshot(snapshot, ended) }
        } else {
            self.prepareSnapshot = nil
        }
    }

    /// The most items the buffer holds: its capacity in events, plus the snapshot and the fresh
    /// state one of them may bring.
    static func itemCapacity(for configuration: RecorderConfiguration<State, Action>) -> Int {
        max(1, configuration.bufferCapacity) + 2
    }

    /// The single-producer check's entry (debug builds): a second hand-off under way is a misuse.
    @usableFromInline
    func enterHandOff() {
        if handOffsUnderWay.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue > 1 {
            fatalError("Recorder<\(State.self), \(Action.self)>'s middleware was called from two threads at once: bind it to one store only.")
        }
    }

    @usableFromInline
    func leaveHandOff() {
        handOffsUnderWay.wrappingSubtract(1, ordering: .acquiringAndReleasing)
    }

    /// Moves the writer to working, from whatever it was doing: `true` when it was not
    /// working, and is to be woken (`wakeWriter`) once the lock is let go.
    @usableFromInline
    func markWorking(_ contents: inout Contents) -> Bool {
        wakeAt.store(.max, ordering: .relaxed)
        guard contents.writer != .working else { return false }
        contents.writer = .working
        return true
    }

    /// Whether what was just pushed is to wake the writer — it sleeps idle, or it coalesces and
    /// the ring now holds a batch (or the push is `urgent`) — and if so, marks it working.
    @usableFromInline
    func wakesWriter(_ contents: inout Contents, holding count: Int, batchSize: Int, urgent: Bool = false) -> Bool {
        let wake = switch contents.writer {
        case .working: false
        case .idle: true
        case .coalescing: urgent || count >= batchSize
        }
        guard wake else { return false }
        _ = markWorking(&contents)
        // A writer that slept is not stuck: its silence counts from its waking.
        contents.busySince = .now
        return true
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
