public import Dispatch
import Foundation
public import Rewind
public import Synchronization

/// Records every action a store reduces — with its source, in the reducer's order — into an
/// `EventLog`, off the dispatch path.
///
/// ```swift
/// let log = try EventLog(path: "shop.rewind")
/// let recorder = Recorder<ShopState, ShopAction>(log: log, app: AppIdentity(id: "com.example.shop"))
/// let store = Store(initialState: ShopState(), reducer: Shop.reducer,
///                   middleware: .combine(recorder.middleware, Shop.effects(environment: .simulated)))
/// …
/// try await recorder.close()   // commits what is buffered (releasing the recorder starts the same, without waiting)
/// ```
///
/// When a store binds ``middleware``, the recorder begins a session holding the store's
/// initial state. On each action, the dispatch path only appends the action, its source and the
/// time to a bounded buffer. A writer thread encodes what has accumulated and commits it in one
/// transaction (group commit), snapshots the state every ``RecorderConfiguration/snapshotInterval``
/// actions or further apart (``RecorderConfiguration/snapshotBudget``), and applies retention.
///
/// Nothing is dropped silently. A full buffer makes dispatch wait. A batch that cannot be
/// written (disk full, file deleted, permissions) is reported to
/// ``RecorderConfiguration/onFailure`` with the actions that are not in the log, the app keeps
/// running, and the next ``flush()-2pv67`` throws. Once writing works again, the loss is recorded as
/// a gap and recording resumes in a new session from the live state — in a new file at the
/// same path if the old one was deleted or replaced.
public final class Recorder<State: Codable & Sendable, Action: Codable & Sendable>: Sendable {
    /// Where it records.
    public let destination: RecordingDestination
    /// Who is recording.
    public let app: AppIdentity
    /// How.
    public let configuration: RecorderConfiguration<State, Action>

    @usableFromInline let buffer: RecordingBuffer<State, Action>
    @usableFromInline let writer: RecorderWriter<State, Action>

    /// Creates a recorder into `destination` and starts its writer thread. Recording begins
    /// when a store binds ``middleware``.
    ///
    /// - Parameters:
    ///   - destination: A log file, or a PostgreSQL store (RewindPostgres).
    ///   - app: Who is recording.
    ///   - configuration: Durability, snapshots, codec, redaction, retention, failure handling.
    // Inlinable, like the dispatch path, and always inlined, so that the batch encoding is
    // made in the app's module and specialised there for its types (``EncodedBatch``).
    @inlinable @inline(__always)
    public convenience init(
        into destination: RecordingDestination, app: AppIdentity, configuration: RecorderConfiguration<State, Action> = RecorderConfiguration()
    ) {
        self.init(into: destination, app: app, configuration: configuration, encode: Self.batchEncoding)
    }

    /// The writer's batch encoding, made where this is inlined: in the app's module, for its
    /// types, by every public initializer.
    @inlinable @inline(__always)
    static var batchEncoding: EncodedBatch<Action>.Encoding<State> {
        { batch, items, codec, configuration, path, endingAtSnapshot, progressed in
            batch.encode(items, codec: codec, configuration: configuration, path: path, endingAtSnapshot: endingAtSnapshot, progressed: progressed)
        }
    }

    /// Creates a recorder whose writer encodes batches with `encode`.
    @usableFromInline
    init(
        into destination: RecordingDestination, app: AppIdentity, configuration: RecorderConfiguration<State, Action>,
        encode: @escaping EncodedBatch<Action>.Encoding<State>
    ) {
        self.destination = destination
        self.app = app
        self.configuration = configuration
        // The crash hook (once per process) and this recorder's counters for it.
        var hookFailure: CrashHookError?
        if configuration.crashMarks {
            do throws(CrashHookError) { try CrashHook.install() } catch { hookFailure = error }
        }
        let crashMarking = configuration.crashMarks && hookFailure == nil ? CrashMarking() : nil
        buffer = RecordingBuffer(
            itemCapacity: RecordingBuffer<State, Action>.itemCapacity(for: configuration),
            snapshotForecast: SnapshotSpacing(interval: configuration.snapshotInterval, budget: configuration.snapshotBudget).forecast,
            crashMarking: crashMarking,
            hangWatchdog: configuration.hangLimit.flatMap { $0 > .zero ? HangWatchdog(limit: $0, crashMarking: crashMarking, clock: configuration.clock) : nil },
            prepareSnapshot: SnapshotAheadEncoder.preparer(for: configuration)
        )
        writer = RecorderWriter(log: destination.target, buffer: buffer, configuration: configuration, encode: encode)
        if let hookFailure {
            writer.report(RecorderFailure(error: .failed(path: destination.name, reason: "\(hookFailure); sessions are recorded without crash marks"), unrecorded: []))
        }
        writer.start()
        buffer.hangWatchdog?.start()
    }

    /// Releasing the recorder asks its writer to commit what is buffered and stop, and does not
    /// wait: the thread that releases it (often the main thread) never waits for the disk.
    /// A failure of that last commit goes to `onFailure`, as every failure does. Code that must
    /// know the log is complete — a command-line tool about to exit, a test about to read the
    /// file — calls ``close()-3vg18`` (or `await close()`) first.
    deinit {
        askToClose()
    }

    /// Marks the recorder closing (further actions are refused) and wakes the writer to commit
    /// what is buffered and stop; `true` when it was closing already.
    @discardableResult
    private func askToClose() -> Bool {
        // First the dispatch path's flag, then a fence, and only then `isClosing`, which the
        // writer exits on once the ring is empty: an action pushed without seeing the flag is
        // then in the ring for the writer to see (the other side is `handOff`'s fence).
        buffer.divert.bitwiseOr(RecordingBuffer<State, Action>.Divert.closing, ordering: .sequentiallyConsistent)
        buffer.fence.heavy()
        let (alreadyClosing, wake) = buffer.contents.withLock { contents in
            let already = contents.isClosing
            contents.isClosing = true
            return (already, buffer.markWorking(&contents))
        }
        if wake { buffer.wakeWriter.signal() }
        return alreadyClosing
    }

    /// Where this recorder's reports wait to be delivered (``RecorderConfiguration/reports``):
    /// ``ReportOptions/outbox``, or the folder beside the log file; `nil` when reports are off,
    /// or a store's recorder names no outbox.
    public var outbox: ReportOutbox? {
        guard let reports = configuration.reports else { return nil }
        return reports.outbox ?? writer.log.reportOutbox
    }

    /// The session being recorded, once a store has bound ``middleware``. The writer thread
    /// begins it; this waits until it has (`nil` when it could not: see ``flush()-2pv67``), so on a
    /// store that does not answer it waits as long: ask ``currentSession()`` from async code.
    /// `nil` too between a ``suspend()-54smz`` and the session the next action begins.
    public var session: LogSession? {
        writer.awaitBegin()
        return writer.session
    }

    /// ``session`` for async code: the wait for the writer thread to begin the session happens
    /// on a Dispatch thread, so the calling actor (the main actor, say) is free meanwhile.
    public func currentSession() async -> LogSession? {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { [self] in continuation.resume(returning: session) }
        }
    }

    /// The middleware to give the store. Binding it begins a session holding the store's
    /// initial state; bind it to one store only (its hand-off takes one producer: a debug build
    /// stops with a message when two stores dispatch through it at once).
    ///
    /// The bound middleware keeps the recorder alive, so a store owns its recorder: releasing
    /// the store releases the recorder, whose writer then commits what is buffered and stops
    /// (without making the releasing thread wait: see ``close()-3vg18``).
    // Inlinable, like the store's dispatch path, so that the per-action hook is specialised
    // for the app's state and action types instead of running generic code.
    @inlinable
    public var middleware: Middleware<State, Action> {
        Middleware { [self] context in hooks(initialState: context.state) }
    }

    /// The longest commit of one batch so far (what a dispatch waiting for room waits at
    /// most): for the bench, beside the longest dispatch.
    package var longestCommit: Duration {
        .nanoseconds(writer.longestCommit.load(ordering: .relaxed))
    }

    /// Begins a session holding `initialState` and returns the per-action hooks: the one path
    /// by which both ``middleware`` and ``tap(initialState:)`` record.
    @inlinable
    func hooks(initialState: State) -> Middleware<State, Action>.Hooks {
        writer.beginSession(app: app, initialState: initialState)
        let synchronous = configuration.durability == .synchronous
        let capacity = max(1, configuration.bufferCapacity)
        // Named once per binding: a store's name is built from its location.
        let path = destination.name
        return Middleware.Hooks(
            willReduce: { [buffer, configuration] dispatched, state in
                buffer.hangWatchdog?.enter(dispatched)
                // After a failed write, the writer asks for the live state to resume from in
                // a new session: the state before this action, so the action itself is the
                // new session's first event. One relaxed load per action otherwise.
                if buffer.freshStateWanted.load(ordering: .relaxed),
                   buffer.freshStateWanted.compareExchange(expected: true, desired: false, ordering: .acquiringAndReleasing).exchanged {
                    let time = EventStamp.now(by: configuration)
                    let taken = buffer.contents.withLock { contents in
                        // While actions are let go on a stuck store, a state taken now
                        // would follow some of them: ask again once the writer has them.
                        guard contents.stalled == nil, buffer.ring.countForProducer(refresh: true) < buffer.ring.size else { return false }
                        buffer.ring.push(.freshState(state, time: time), flagged: false)
                        buffer.sinceSnapshot = 0
                        return true
                    }
                    if !taken { buffer.freshStateWanted.store(true, ordering: .releasing) }
                }
            },
            didReduce: { [self] dispatched, state in
                #if DEBUG
                buffer.enterHandOff()
                defer { buffer.leaveHandOff() }
                #endif
                // Out of the action before the hand-off: a wait for room is the recorder's, not a hang.
                let hung = buffer.hangWatchdog?.leave() ?? false
                Self.handOff(dispatched, state: state, buffer: buffer, configuration: configuration,
                             synchronous: synchronous, capacity: capacity, path: path, hung: hung)
                buffer.hangWatchdog?.settle()
            }
        )
    }

    /// The dispatch path: append, wake the writer if it sleeps, wait only for room (or, when
    /// synchronous, for the commit) — and not past the `stallLimit` on a stuck store.
    ///
    /// Most actions take the fast path: pushed to the ring without the lock, which is taken
    /// only when something is to be settled under it (see ``RecordingBuffer``).
    @inlinable
    static func handOff(
        _ dispatched: DispatchedAction<Action>,
        state: State,
        buffer: RecordingBuffer<State, Action>,
        configuration: RecorderConfiguration<State, Action>,
        synchronous: Bool,
        capacity: Int,
        path: String,
        hung: Bool = false
    ) {
        let time = EventStamp.now(by: configuration)
        // The action the buffer keeps: the hang watchdog's copy, made as the action entered,
        // moved out of its slot (its action and source are this one's: a store gives both
        // hooks the same, a tap's caller promises it; a tap gives the ticket and cause only
        // now) — one copy of the action per dispatch. A copy without a watchdog.
        func kept() -> DispatchedAction<Action> {
            guard let watchdog = buffer.hangWatchdog, watchdog.holdsAction else { return dispatched }
            return watchdog.takeAction(ticket: dispatched.ticket, cause: dispatched.cause)
        }
        let ring = buffer.ring
        if !synchronous, !hung, buffer.divert.load(ordering: .relaxed) == 0, buffer.sinceSnapshot &+ 1 < buffer.snapshotAfter,
           ring.countForProducer(refresh: false) < capacity || ring.countForProducer(refresh: true) < capacity {
            let number = ring.push(.event(kept(), time: time), flagged: true)
            buffer.handedOff &+= 1
            buffer.sinceSnapshot &+= 1
            buffer.handedOffCount.store(buffer.handedOff, ordering: .releasing)
            buffer.crashMarking?.noteHandedOff(buffer.handedOff, source: dispatched.source)
            // Against the writer going to sleep (it sets `wakeAt`, then reads `pushed`) and
            // against a close (it sets `closing`, then the writer reads `pushed`): either they
            // see this push, or this sees them.
            buffer.fence.light()
            if number >= buffer.wakeAt.load(ordering: .relaxed) || buffer.divert.load(ordering: .relaxed) & RecordingBuffer<State, Action>.Divert.closing != 0 {
                afterPush(number, buffer: buffer, configuration: configuration, path: path)
            }
            return
        }
        handOffUnderLock(kept, time: time, state: state, buffer: buffer, configuration: configuration,
                         synchronous: synchronous, capacity: capacity, path: path, hung: hung)
    }

    /// After a push on the fast path that may need the writer woken, or that raced a close:
    /// wakes the writer as it asked, or — when the writer exited without taking the action —
    /// takes it back and reports it refused. (Not inlined: a few times per batch at most.)
    @usableFromInline
    static func afterPush(_ number: Int, buffer: RecordingBuffer<State, Action>, configuration: RecorderConfiguration<State, Action>, path: String) {
        let ring = buffer.ring
        let (wake, reclaim) = buffer.contents.withLock { contents -> (Bool, Bool) in
            if contents.ringClosed {
                // The writer exited: it took this action, or never will.
                return (false, ring.taken.load(ordering: .acquiring) < number)
            }
            return (buffer.wakesWriter(&contents, holding: ring.countForProducer(refresh: true), batchSize: configuration.batchSize), false)
        }
        if wake { buffer.wakeWriter.signal() }
        if reclaim, case let .event(dispatched, _) = ring.reclaimLast(number: number) {
            buffer.handedOff &-= 1
            buffer.handedOffCount.store(buffer.handedOff, ordering: .releasing)
            configuration.onFailure(RecorderFailure(error: .closed(path: path), unrecorded: [dispatched]))
        }
    }

    /// The dispatch path under the buffer's lock: a snapshot to hand over, no room, a stall,
    /// a closing recorder, synchronous durability, a hang that ended, a new snapshot forecast.
    @inlinable
    static func handOffUnderLock(
        _ kept: () -> DispatchedAction<Action>,
        time: EventStamp,
        state: State,
        buffer: RecordingBuffer<State, Action>,
        configuration: RecorderConfiguration<State, Action>,
        synchronous: Bool,
        capacity: Int,
        path: String,
        hung: Bool
    ) {
        typealias Buffer = RecordingBuffer<State, Action>
        let batchSize = configuration.batchSize
        let ring = buffer.ring
        var roomWaiter: DispatchSemaphore?
        var source: ActionSource?
        while true {
            let outcome: HandOffOutcome = buffer.contents.withLock { contents in
                if contents.isClosing {
                    return .refused
                }
                if let waiter = roomWaiter {
                    // Back from a wait that timed out: it waits again below, or not at all.
                    contents.roomWaiters.removeAll { $0 === waiter }
                }
                if buffer.divert.load(ordering: .relaxed) & Buffer.Divert.forecast != 0 {
                    // Re-space the snapshot handed over last, which may be later than the one
                    // the writer wrote.
                    buffer.snapshotAfter = contents.snapshotForecast.actionsAfter(snapshotAt: buffer.handedOff - UInt64(buffer.sinceSnapshot))
                    buffer.divert.bitwiseAnd(~Buffer.Divert.forecast, ordering: .relaxed)
                }
                let count = ring.countForProducer(refresh: true)
                if contents.stalled != nil || count >= capacity {
                    if contents.stalled != nil || (contents.writer == .working && ContinuousClock.now - contents.busySince >= configuration.stallLimit) {
                        return letGo(kept(), at: time.seconds, buffer: buffer, contents: &contents, capacity: capacity, path: path)
                    }
                    let waiter = roomWaiter ?? DispatchSemaphore(value: 0)
                    contents.roomWaiters.append(waiter)
                    let wake = buffer.markWorking(&contents)
                    if wake { contents.busySince = .now }
                    return .full(waiter, wake: wake, stuckAt: contents.busySince + configuration.stallLimit)
                }
                let event = kept()
                source = event.source
                ring.push(.event(event, time: time), flagged: true)
                buffer.handedOff += 1
                buffer.handedOffCount.store(buffer.handedOff, ordering: .releasing)
                if hung, let hang = buffer.hangWatchdog?.takeHang() { contents.endedHangs.append((buffer.handedOff, hang)) }
                buffer.sinceSnapshot += 1
                if buffer.sinceSnapshot >= buffer.snapshotAfter {
                    // Room: the event found fewer than `capacity` items, the ring holds two more.
                    let snapshot = PendingSnapshot(state, time: time.seconds)
                    ring.push(.snapshot(snapshot), flagged: false)
                    // Its encoding begins now, beside the writer's work on what comes before
                    // it. Begun when the writer first saw it, a writer that keeps up reached
                    // it still encoding, and a take that waited for it held up a full burst
                    // (traced: 52 of 234 snapshot takes waited over 4 ms, up to 10.8).
                    buffer.prepareSnapshot?(snapshot)
                    buffer.sinceSnapshot = 0
                    buffer.snapshotAfter = contents.snapshotForecast.actionsAfter(snapshotAt: buffer.handedOff)
                }
                var committed: DispatchSemaphore?
                if synchronous {
                    let waiter = DispatchSemaphore(value: 0)
                    contents.writeWaiters.append((buffer.handedOff, waiter))
                    committed = waiter
                }
                let wake = buffer.wakesWriter(&contents, holding: ring.countForProducer(refresh: false), batchSize: batchSize, urgent: synchronous)
                return .accepted(wake: wake, committed: committed)
            }
            switch outcome {
            case let .accepted(wake, committed):
                if let source { buffer.crashMarking?.noteHandedOff(buffer.handedOff, source: source) }
                if wake { buffer.wakeWriter.signal() }
                if let committed { waitForCommit(committed, buffer: buffer, stallLimit: configuration.stallLimit) }
                return
            case let .full(waiter, wake, stuckAt):
                if wake { buffer.wakeWriter.signal() }
                roomWaiter = waiter
                // Woken for room, or at the moment the store would count as stuck; either way
                // the loop looks again (a commit meanwhile moves that moment on).
                _ = waiter.wait(timeout: .now() + RecordingBuffer<State, Action>.seconds(until: stuckAt))
            case .letGo:
                return
            case .refused:
                configuration.onFailure(RecorderFailure(error: .closed(path: path), unrecorded: [kept()]))
                return
            }
        }
    }

    /// Waits for a synchronous dispatch's commit — but not past the moment the store counts as
    /// stuck: the action then stays buffered, to be committed when the store answers (or
    /// counted in a gap), and dispatch returns. (Not inlined: it runs once per synchronous
    /// action, which waits for a commit anyway.)
    @usableFromInline
    static func waitForCommit(_ committed: DispatchSemaphore, buffer: RecordingBuffer<State, Action>, stallLimit: Duration) {
        while true {
            let stuckAt = buffer.contents.withLock { $0.busySince } + stallLimit
            if committed.wait(timeout: .now() + RecordingBuffer<State, Action>.seconds(until: stuckAt)) == .success { return }
            let stuck = buffer.contents.withLock { contents in
                guard ContinuousClock.now - contents.busySince >= stallLimit else { return false }
                // A signal the writer sends after this finds a semaphore nobody waits on: harmless.
                contents.writeWaiters.removeAll { $0.semaphore === committed }
                return true
            }
            if stuck { return }
        }
    }

    /// Lets `dispatched` go on a stuck store, counted in the stall's tally (the slow path,
    /// not inlined into the app's dispatch). The first one makes the stall the failure the next
    /// `flush()` throws.
    @usableFromInline
    static func letGo(
        _ dispatched: DispatchedAction<Action>, at time: Double, buffer: RecordingBuffer<State, Action>,
        contents: inout RecordingBuffer<State, Action>.Contents, capacity: Int, path: String
    ) -> HandOffOutcome {
        if contents.stalled == nil {
            buffer.divert.bitwiseOr(RecordingBuffer<State, Action>.Divert.stalled, ordering: .relaxed)
            let error = EventLogError.stalled(path: path, seconds: (ContinuousClock.now - contents.busySince).inSeconds)
            contents.stalled = StalledActions(error: error, keepAtMost: capacity)
            if contents.unthrownFailure == nil { contents.unthrownFailure = error }
        }
        contents.stalled?.add(dispatched, at: time)
        return .letGo
    }

    /// Waits until every action handed off so far is written, then throws the first failure
    /// since the last `flush()`, if any. While the recorder is suspended, it also waits for
    /// the session those actions were written in to end as suspended.
    ///
    /// - Throws: The ``EventLogError`` of a batch that could not be written.
    public func flush() throws(EventLogError) {
        writer.awaitBegin()
        let waiter = DispatchSemaphore(value: 0)
        let (mustWait, wake) = buffer.contents.withLock { contents in
            let handedOff = buffer.handedOffCount.load(ordering: .acquiring)
            // While a suspended write finishes, its session's ending is still to come: waited
            // for too, even when every action is written (the writer wakes this once it is).
            let ending = contents.suspension == .wanted && !contents.writerGone
            guard contents.written < handedOff || ending || contents.snapshotHeld else { return (false, false) }
            contents.writeWaiters.append((handedOff, waiter))
            return (true, buffer.markWorking(&contents))
        }
        if wake { buffer.wakeWriter.signal() }
        if mustWait { waiter.wait() }
        writer.drainReports()
        try throwUnthrownFailure()
    }

    /// Gets the recorder ready for the app to be suspended: writes what is buffered, ends the
    /// session as ``SessionEnding/Kind/suspended`` — letting go of its lock, which a suspended
    /// app must not hold on a file in a shared container — and holds nothing until
    /// ``resume()``. Call it when the app goes to the background (a scene phase of
    /// `.background`); on Apple platforms the work runs inside a background-task assertion
    /// (`ProcessInfo.performExpiringActivity`), so the system lets it finish.
    ///
    /// While suspended, actions dispatched in the background wait in the buffer; a
    /// ``flush()-2pv67``, a full buffer or ``close()-3vg18`` writes them, in a session of their
    /// own that begins from the state before the first of them and ends as suspended once they are
    /// written. After ``resume()``, recording goes on with the next action, in a new session
    /// from the live state. The session that ended suspended is the mark the next launch reads:
    /// an app the system ended while it was suspended left no session unended, so it is not
    /// taken for a crash. ``session`` is `nil` between a suspension and the next session.
    ///
    /// An action the store is reducing on another thread as the session ends (the app's
    /// last action before the background, say, while this runs in a detached task) is waited
    /// for and written in that session — for at most half the
    /// ``RecorderConfiguration/hangLimit``, since a `suspend()` called from inside an action on
    /// the store's own thread would wait for itself. An action still under way past that, or
    /// any such action when the hang watchdog is off (`hangLimit` `nil`: nothing then tells the
    /// writer that the store is inside one), cannot be recorded in either session: it is
    /// counted in a gap of the suspended session, reported to `onFailure` and thrown by the next
    /// flush, and the next session begins from the state after it.
    ///
    /// - Throws: The first failure since the last ``flush()-2pv67``, if any — among them a
    ///   session that could not be ended (a full disk): it then stays open, and its lock held.
    public func suspend() throws(EventLogError) {
        try BackgroundActivity.run(reason: "Rewind: saving the recording before suspension") { [self] () throws(EventLogError) in
            writer.awaitBegin()
            let waiter = DispatchSemaphore(value: 0)
            let (wait, wake) = buffer.contents.withLock { contents in
                // A closed recorder's writer has ended its session and holds nothing.
                guard !contents.writerGone else { return (false, false) }
                contents.suspension = .wanted
                contents.suspendWaiters.append(waiter)
                return (true, buffer.markWorking(&contents))
            }
            if wake { buffer.wakeWriter.signal() }
            if wait { waiter.wait() }
            writer.drainReports()
            try throwUnthrownFailure()
        }
    }

    /// ``suspend()-54smz`` for async code, waiting on a Dispatch thread as `flush()` does.
    ///
    /// - Throws: As ``suspend()-54smz``.
    public func suspend() async throws(EventLogError) {
        try await Self.offCaller { [self] () throws(EventLogError) in try suspend() }
    }

    /// Ends a ``suspend()-54smz``: recording goes on with the next action, in a new session from
    /// the state before it, and actions dispatched while suspended are written (in the session
    /// they began). Never waits. Calling it while not suspended does nothing.
    public func resume() {
        let wake = buffer.contents.withLock { contents in
            guard contents.suspension != .running else { return false }
            contents.suspension = .running
            guard buffer.ring.pushed.load(ordering: .acquiring) != buffer.ring.taken.load(ordering: .acquiring), buffer.markWorking(&contents) else { return false }
            contents.busySince = .now
            return true
        }
        if wake { buffer.wakeWriter.signal() }
    }

    /// Throws the first failure since the last `flush()`, if any, and forgets it.
    private func throwUnthrownFailure() throws(EventLogError) {
        let failure = buffer.contents.withLock { contents in
            defer { contents.unthrownFailure = nil }
            return contents.unthrownFailure
        }
        if let failure { throw failure }
    }

    /// ``flush()-2pv67`` for async code: the wait happens on a Dispatch thread, so neither the
    /// calling actor (the main actor, say) nor Swift's cooperative pool is held while the disk
    /// or a store answers.
    ///
    /// - Throws: The ``EventLogError`` of a batch that could not be written.
    public func flush() async throws(EventLogError) {
        try await Self.offCaller { [self] () throws(EventLogError) in try flush() }
    }

    /// ``close()-3vg18`` for async code, waiting on a Dispatch thread as `flush()` does.
    ///
    /// - Throws: The first failure since the last ``flush()-2pv67``, if any.
    public func close() async throws(EventLogError) {
        try await Self.offCaller { [self] () throws(EventLogError) in try close() }
    }

    /// Runs a blocking wait (or work) on a Dispatch thread and resumes with its outcome.
    static func offCaller<T: Sendable>(_ wait: @escaping @Sendable () throws(EventLogError) -> T) async throws(EventLogError) -> T {
        let outcome: Result<T, EventLogError> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                do throws(EventLogError) {
                    continuation.resume(returning: .success(try wait()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try outcome.get()
    }

    /// Writes what is buffered, stops the writer thread and refuses further actions (they are
    /// reported to `onFailure`). Calling it again does nothing.
    ///
    /// Another process keeping a shared log file busy delays it: the session's end is tried
    /// three times, each waiting up to SQLite's busy timeout (5 s), since a session left
    /// unended reads as a crash to the next launch.
    ///
    /// - Throws: The first failure since the last ``flush()-2pv67``, if any.
    public func close() throws(EventLogError) {
        guard !askToClose() else { return }
        buffer.writerExited.wait()
        writer.drainReports()
        try throwUnthrownFailure()
    }
}
