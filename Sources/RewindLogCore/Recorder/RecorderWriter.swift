internal import CRewindCrash
import Dispatch
import Foundation
import Rewind
import Synchronization

/// The recorder's writer thread: takes everything buffered, encodes it and commits it, at most
/// ``RecorderConfiguration/batchSize`` events per transaction; wakes those waiting for each
/// commit; reports what could not be written.
@usableFromInline
final class RecorderWriter<State: Codable & Sendable, Action: Codable & Sendable>: Sendable {
    let buffer: RecordingBuffer<State, Action>
    let configuration: RecorderConfiguration<State, Action>
    let currentSession = Mutex<LogSession?>(nil)
    /// Settings already reported as unstorable (``reportOnce(_:)``).
    private let reportedSettings = Mutex<Set<String>>([])
    /// The log being written: the app's, until it stops being in place (a file deleted or
    /// replaced); then the one the writer opened where it was (`reopenedInPlace()`).
    let target: Mutex<any RecordingLog>

    var log: any RecordingLog {
        target.withLock { $0 }
    }
    /// The longest `commit` of one batch so far, in nanoseconds (encoding, writing and waking
    /// those waiting): the most a dispatch waiting for room waits, for the bench to set beside
    /// the longest dispatch.
    let longestCommit = Atomic<Int64>(0)
    /// Where `onFailure` runs: never on the writer thread, so a handler may call `flush()` or
    /// `close()`, or dispatch into a full buffer, without waiting on the thread it blocks.
    private let reports = DispatchQueue(label: "RewindLog.failures")

    /// Encodes a batch: the one part of the writer's work done per action, made where the
    /// recorder is created so that it is specialised for the app's types (``EncodedBatch``).
    let encode: EncodedBatch<Action>.Encoding<State>

    init(
        log: any RecordingLog, buffer: RecordingBuffer<State, Action>, configuration: RecorderConfiguration<State, Action>,
        encode: @escaping EncodedBatch<Action>.Encoding<State>
    ) {
        target = Mutex(log)
        self.buffer = buffer
        self.configuration = configuration
        self.encode = encode
    }

    var session: LogSession? {
        currentSession.withLock { $0 }
    }

    /// Makes `session` the one being recorded (the writer thread's only way to change it), and
    /// the one a crash marks.
    func hold(_ session: LogSession?) {
        currentSession.withLock { $0 = session }
        buffer.crashMarking?.follow(session.flatMap { log.crashMarkDescriptor(for: $0) })
        // Beginning it marked the sessions of writers that died before: report their crashes.
        if session != nil { sealCrashReports() }
    }

    /// Hands `failure` to `onFailure`, in order, on the reports queue.
    func report(_ failure: RecorderFailure<Action>) {
        let onFailure = configuration.onFailure
        reports.async { onFailure(failure) }
    }

    /// Waits until every failure reported so far has been handled — unless called from a
    /// handler itself, which would wait for itself.
    func drainReports() {
        guard DispatchQueue.getSpecific(key: reportsKey) == nil else { return }
        reports.sync {}
    }

    func start() {
        reports.setSpecific(key: reportsKey, value: true)
        let thread = Thread { [self] in
            // Its own signal stack (SA_ONSTACK), so that the handler still has a stack when
            // this one is exhausted. (A stack overflow on this thread is not tested.)
            let signalStack = buffer.crashMarking == nil ? nil : rewind_crash_prepare_thread()
            defer { rewind_crash_release_thread(signalStack) }
            run()
        }
        thread.name = "RewindLog.writer"
        thread.start()
    }

    /// Asks for the session a store's binding begins, at the binding's time: the writer thread
    /// writes it before anything else, so the binding thread (an app's main thread at launch)
    /// touches no disk. Actions dispatched meanwhile wait in the buffer, as any do. When it
    /// cannot begin (a full disk at launch), the failure is reported and each batch tries again
    /// until it can; what was dispatched meanwhile is a gap after the initial state (see
    /// ``write(_:after:progress:)``).
    @usableFromInline
    func beginSession(app: AppIdentity, initialState: State) {
        boundApp.withLock { $0 = app }
        unstarted.withLock { $0 = Unstarted(app: app, state: initialState, date: configuration.clock()) }
        let wake = buffer.contents.withLock { contents in
            contents.sessionBegin = .wanted
            return buffer.markWorking(&contents)
        }
        if wake { buffer.wakeWriter.signal() }
    }

    /// Waits until the writer has tried to begin the session a binding asked for, if one was.
    func awaitBegin() {
        let waiter: DispatchSemaphore? = buffer.contents.withLock { contents in
            guard contents.sessionBegin != .none else { return nil }
            let waiter = DispatchSemaphore(value: 0)
            contents.beginWaiters.append(waiter)
            return waiter
        }
        waiter?.wait()
    }

    /// Begins the session a binding asked for (the writer thread's first job after it); a
    /// failure is reported, and the next batch tries again.
    private func begin(progress: inout Progress) {
        do {
            try startPendingSession(progress: &progress)
        } catch {
            buffer.contents.withLock { if $0.unthrownFailure == nil { $0.unthrownFailure = error } }
            report(RecorderFailure(error: error, unrecorded: []))
        }
        let waiters = buffer.contents.withLock { contents in
            contents.sessionBegin = .none
            defer { contents.beginWaiters.removeAll() }
            return contents.beginWaiters
        }
        // Reported before anyone waiting goes on: `flush()` drains the reports after its wait.
        for waiter in waiters { waiter.signal() }
    }

    /// Begins a session from `state` (scrubbed here).
    private func startSession(app: AppIdentity, state: State, at date: Date) throws(EventLogError) -> LogSession {
        try log.beginSession(
            app: storable(app), codec: configuration.codec, initialState: configuration.redaction.scrubbed(state),
            info: sessionInfo, shapes: shapes, at: date
        )
    }

    /// The app's identity as a store can keep it: a NUL (see `LogText`) replaced by U+FFFD and
    /// reported once, rather than a session that can never begin.
    func storable(_ app: AppIdentity) -> AppIdentity {
        guard !LogText.isStorable(app.id) || !LogText.isStorable(app.version) else { return app }
        var stored = app
        stored.id = LogText.replacingNUL(app.id)
        stored.version = LogText.replacingNUL(app.version)
        reportOnce(.failed(path: log.path, reason: LogText.refusal("the app's identity") + "; its sessions are recorded with U+FFFD in its place"))
        return stored
    }

    /// The configuration's session info, or `nil` (reported once) when no store can keep it.
    var sessionInfo: String? {
        guard !LogText.isStorable(configuration.sessionInfo) else { return configuration.sessionInfo }
        reportOnce(.failed(path: log.path, reason: LogText.refusal("the recorder's sessionInfo") + "; its sessions are recorded without it"))
        return nil
    }

    /// Reports `error` the first time it is met: a setting that every session repeats.
    private func reportOnce(_ error: EventLogError) {
        let first = reportedSettings.withLock { $0.insert(error.description).inserted }
        guard first else { return }
        buffer.contents.withLock { if $0.unthrownFailure == nil { $0.unthrownFailure = error } }
        report(RecorderFailure(error: error, unrecorded: []))
    }

    /// A session that could not begin, tried again at the next batch.
    private struct Unstarted {
        var app: AppIdentity
        var state: State
        var date: Date
    }

    /// Set while the session could not begin.
    private let unstarted = Mutex<Unstarted?>(nil)
    /// The app a store's binding records as: the sessions begun after a suspension are its too.
    private let boundApp = Mutex<AppIdentity?>(nil)

    /// Begins the session that could not begin at binding, if there is one; once it has, a gap
    /// tallied meanwhile (`progress.gap`) is that session's, after its initial state.
    private func startPendingSession(progress: inout Progress) throws(EventLogError) {
        guard session == nil, let pending = unstarted.withLock({ $0 }) else { return }
        let started = try startSession(app: pending.app, state: pending.state, at: pending.date)
        unstarted.withLock { $0 = nil }
        hold(started)
        progress.suspended = nil
        if checksInvariants { progress.shadow = pending.state }
        progress.gap?.record.session = started.id
        progress.gap?.record.afterSeq = started.baseSeq
    }

    /// The shapes every session of this writer records (found once per type and process:
    /// `TypeShape.of(_:probing:)` caches them).
    var shapes: SessionShapes {
        SessionShapes.of(state: State.self, action: Action.self, source: configuration.typeShapes)
    }

    private enum Job {
        case begin
        /// End the session held, if any, for a suspension; then wake `waiters`.
        case suspend(waiters: [DispatchSemaphore])
        /// `newest`: the last action handed off, and its index, for the crash mark to name.
        case sleep(until: ContinuousClock.Instant?, newest: (UInt64, Action)? = nil)
        /// `events`: how many of the items are events. `mayHold`: whether a snapshot at the
        /// start of the items may be held back (see ``HeldSnapshot``): nobody waits for the
        /// writer.
        case write(
            [RecordingBuffer<State, Action>.Item], events: [Int], roomWaiters: [DispatchSemaphore], stalled: StalledActions<Action>?,
            mayHold: Bool
        )
        /// Check retention and checkpoint the log, when due, now that the writer has caught up.
        case tidy
        case exit
    }

    private func run() {
        var spare: [RecordingBuffer<State, Action>.Item] = []
        let ring = buffer.ring
        spare.reserveCapacity(RecordingBuffer<State, Action>.itemCapacity(for: configuration))
        let maxDelay: Duration? = if case let .buffered(delay) = configuration.durability { delay } else { nil }
        var commitsSinceRetention = 0
        // Retention is checked `checkEvery` commits after the last check, once the writer has
        // caught up (nothing buffered): a check reads the sizes of the log's newest payloads,
        // up to its byte limit (5–15 ms on the bench's burst of 100,000 shop actions, more on a
        // log near its limit), and a dispatch waiting for room would wait for it too. A writer
        // that does not catch up checks anyway after `patience` times as many commits. The
        // same for a file's checkpoint: the log puts it off while the writer is behind, up to
        // a bound of its own (`RecordingLog.wantsCheckpoint`).
        let patience = 4
        var checkpointWanted = false
        func retentionIsDue(after checkEvery: Int = 1) -> Retention? {
            guard let retention = configuration.retention, commitsSinceRetention >= retention.checkEvery * checkEvery else { return nil }
            return retention
        }
        func trim(to retention: Retention) {
            commitsSinceRetention = 0
            do {
                let step = try log.trim(to: retention, now: configuration.clock(), removingAtMost: retention.eventsPerStep)
                // A backlog (a large log from before a budget) goes a step after each commit;
                // a step that removed nothing (another writer's live session holds the cut)
                // waits for the next check, not the next commit.
                if !step.isComplete, step.removed > 0 { commitsSinceRetention = retention.checkEvery - 1 }
                // Retention marks dead writers' sessions too.
                sealCrashReports()
            } catch {
                report(RecorderFailure(error: error, unrecorded: []))
            }
        }
        // How much to take at once while dispatch outruns the writer (``CommitPace``), and
        // whether the take under way is one it measures (events only: no state to encode).
        var pace = CommitPace()
        var measuredTake = false
        let capacity = max(1, configuration.bufferCapacity)
        // The ticket of the last event taken from the buffer: every event handed off is in
        // exactly one take, so a take's events follow the previous take's.
        var taken: UInt64 = 0
        // The session begins when a store binds the middleware, usually after this thread starts:
        // its position is read from it at the first write (`lastSeq` nil until then).
        var progress = Progress(lastSeq: nil, spacing: newSpacing())
        // The crash mark names the case of the last action reduced when the writer has named
        // it here: at each take, and before each wait for more to coalesce (so the action a
        // tap handed off is named within moments, not once its batch is taken).
        let caseName = buffer.crashMarking == nil ? nil : ActionCaseName.namer(for: Action.self)
        var named: UInt64 = 0
        func name(_ index: UInt64, _ action: Action) {
            guard index != named, let caseName, let crashMarking = buffer.crashMarking else { return }
            crashMarking.noteNamed(index, actionCase: caseName(action))
            named = index
        }

        // A suspension that asked for a fresh state: how many actions had entered the dispatch
        // path as it asked (with a watchdog to count them, while recording), since when, and
        // how long it waits at most for those under way (see `written(through:)`).
        var suspensionWait: (entered: UInt64?, since: ContinuousClock.Instant)?
        let suspensionPatience = configuration.hangLimit.map { $0 / 2 } ?? .zero

        while true {
            // A snapshot held back is written once its bytes are done (the encoding wakes this
            // thread as it ends), or at once, waiting for them, when the writer is asked for
            // anything but more events: a flush, a close, a suspension, a new session, a stall.
            if let held = progress.heldSnapshot, !held.snapshot.isBeingEncoded || buffer.contents.withLock({ $0.asksForEverything }) {
                writeHeldSnapshot(progress: &progress)
            }
            // Only this thread begins and ends sessions: whether it holds one is settled here.
            let holding = session != nil || progress.gap != nil
            let recording = session != nil && progress.gap == nil
            let job: Job = buffer.contents.withLock { contents in
                let suspending = contents.suspension == .wanted || !contents.suspendWaiters.isEmpty
                if !suspending { suspensionWait = nil }
                if contents.sessionBegin == .wanted {
                    contents.sessionBegin = .beginning
                    return .begin
                }
                let count = ring.countForConsumer
                if suspending, holding, suspensionWait == nil {
                    // Asked as soon as the suspension is seen, under the lock, so that the state
                    // comes before any action handed off after the session ends: the session
                    // recording goes on in begins from it (see `write`), and this one ends
                    // there, however busy the store (it need not wait for an empty buffer).
                    buffer.freshStateWanted.store(true, ordering: .releasing)
                    // An action already under way did not see the ask: its event, handed off
                    // after the state it would have begun, belongs to this session. The fence
                    // orders the ask before the count, as `enter` orders its count before the
                    // action's look at the ask: an action this count misses sees the ask.
                    var entered: UInt64?
                    if recording, let watchdog = buffer.hangWatchdog {
                        buffer.fence.heavy()
                        entered = watchdog.enteredCount
                    }
                    suspensionWait = (entered, .now)
                }
                if count == 0 {
                    if checkpointWanted || retentionIsDue() != nil {
                        _ = buffer.markWorking(&contents)
                        contents.busySince = .now
                        return .tidy
                    }
                    if contents.isClosing {
                        // Every push that missed `closing` is counted by now (`askToClose`);
                        // one that saw it takes its action back (`afterPush`).
                        contents.ringClosed = true
                        return .exit
                    }
                }
                // A suspension ends the session once what is buffered is written, or at the
                // fresh state the first action after its ask handed over: what follows it
                // begins the next session.
                // (Waiters with no suspension wanted: a `resume()` came while a `suspend()`
                // waited. The session still ends, so that the suspension returns holding
                // nothing; the next action begins another.)
                if suspending, count == 0 || (suspensionWait != nil && ring.peek(0) { $0.isFreshState }) {
                    // It waits for the actions under way at the ask, written in it (a push
                    // wakes this thread) — but not past half the hang limit: a `suspend()`
                    // called inside an action, on the dispatch thread, would wait for itself.
                    // Past that, or with no watchdog to count them, one is counted lost (see
                    // `write`).
                    if let wait = suspensionWait, let entered = wait.entered, recording,
                       ContinuousClock.now - wait.since < suspensionPatience, !written(through: entered) {
                        contents.writer = .idle
                        buffer.wakeAt.store(ring.taken.load(ordering: .relaxed) &+ 1, ordering: .relaxed)
                        return .sleep(until: min(.now + .milliseconds(1), wait.since + suspensionPatience))
                    }
                    suspensionWait = nil
                    if contents.suspension == .wanted { contents.suspension = .done }
                    defer { contents.suspendWaiters.removeAll() }
                    return .suspend(waiters: contents.suspendWaiters)
                }
                if count == 0 {
                    contents.writer = .idle
                    buffer.wakeAt.store(ring.taken.load(ordering: .relaxed) &+ 1, ordering: .relaxed)
                    return .sleep(until: nil)
                }
                let asked = contents.isClosing || !contents.writeWaiters.isEmpty || !contents.roomWaiters.isEmpty || !contents.suspendWaiters.isEmpty
                // Suspended: write only when asked to — then go on until the buffer is empty,
                // and end the session that write began (`.wanted`), so that nothing is held
                // between writes.
                let finishing = contents.suspension == .wanted
                if contents.suspension == .done {
                    guard asked else {
                        contents.writer = .idle
                        buffer.wakeAt.store(ring.taken.load(ordering: .relaxed) &+ count &+ 1, ordering: .relaxed)
                        return .sleep(until: nil)
                    }
                    contents.suspension = .wanted
                }
                let urgent = maxDelay == nil || asked || finishing || count >= configuration.batchSize
                if !urgent, let maxDelay {
                    let deadline = contents.lastCommit + maxDelay
                    if ContinuousClock.now < deadline {
                        contents.writer = .coalescing
                        buffer.wakeAt.store(ring.taken.load(ordering: .relaxed) &+ configuration.batchSize, ordering: .relaxed)
                        return .sleep(until: deadline, newest: caseName == nil ? nil : Self.newestEvent(in: ring, count: count, after: taken))
                    }
                }
                // At most one batch is taken at a time, a state to encode in a take of its own
                // (`takeCount`), so that a dispatch waiting for room waits for one such commit,
                // not for every batch the buffer held (the longest dispatch of a burst was two
                // commits long). Everything is taken after a stall: the actions let go follow
                // the buffer's last.
                // Taken under the lock, with the room waiters: one that found no room before this
                // is woken below, one that looks after finds the room.
                // While dispatch outruns the writer, a take holds what commits within a few
                // milliseconds (``CommitPace``): a dispatch waiting for room waits that long at most.
                let batch = max(1, configuration.batchSize)
                let limit = pace.limit(
                    available: count, batch: batch, capacity: capacity, pushed: ring.pushed.load(ordering: .relaxed),
                    waiting: !contents.roomWaiters.isEmpty, now: .now
                )
                // Decided before the stall below is cleared (a stall's take holds nothing back).
                let mayHold = !contents.asksForEverything
                let taking = contents.stalled != nil
                    ? count : Self.takeCount(ring, count: count, batch: limit, snapshotsJoinEvents: log.writesSnapshotsWithEvents)
                // Counted by the ring's flags, not by looking at the items (see `flags`), for
                // each transaction's part of the take.
                let events = ring.flaggedCounts(taking, every: max(1, configuration.batchSize))
                // Events alone: a take that writes a state too says little of what events cost.
                measuredTake = contents.stalled == nil && events.reduce(0, +) == taking
                ring.take(taking, into: &spare)
                _ = buffer.markWorking(&contents)
                contents.busySince = .now
                // Room again: whoever waits for it can go on.
                let roomWaiters = contents.roomWaiters
                contents.roomWaiters.removeAll()
                // Actions let go on a stuck store follow the items taken: recording resumes
                // from the state before the next action, asked for before any follows them.
                let stalled = contents.stalled
                if stalled != nil {
                    contents.stalled = nil
                    buffer.divert.bitwiseAnd(~RecordingBuffer<State, Action>.Divert.stalled, ordering: .relaxed)
                    buffer.freshStateWanted.store(true, ordering: .releasing)
                }
                return .write(spare, events: events, roomWaiters: roomWaiters, stalled: stalled, mayHold: mayHold)
            }
            // Held for a session that does not end after all (a `resume()` came first): not
            // kept waiting while the writer sleeps. (A begin or a tidy comes back here at once.)
            if case .sleep = job { wakeWritten() }
            switch job {
            case .begin:
                begin(progress: &progress)
            case .tidy:
                if let retention = retentionIsDue() { trim(to: retention) }
                if checkpointWanted {
                    checkpointWanted = false
                    // Like SQLite's own checkpoints, one that fails is tried again after a later
                    // commit; the commits report the log's failures.
                    try? log.checkpoint()
                }
            case let .suspend(waiters):
                let ending = session.map { ($0, progress.position(in: $0)) }
                if holding, finishSession(as: .suspended, progress: &progress) {
                    hold(nil)
                    progress = Progress(lastSeq: nil, spacing: newSpacing())
                    progress.suspended = ending
                }
                wakeWritten()
                // Reported before anyone waiting goes on: `suspend()` drains the reports after its wait.
                for waiter in waiters { waiter.signal() }
            case .exit:
                buffer.hangWatchdog?.stop()
                _ = finishSession(as: .closed, progress: &progress)
                wakeWritten()
                buffer.crashMarking?.follow(nil)
                log.recorderFinished()
                let suspending = buffer.contents.withLock { contents in
                    contents.writerGone = true
                    defer { contents.suspendWaiters.removeAll() }
                    return contents.suspendWaiters
                }
                for waiter in suspending { waiter.signal() }
                buffer.writerExited.signal()
                return
            case let .sleep(deadline, newest):
                if let newest { name(newest.0, newest.1) }
                // Against a push on the fast path (it pushes, then reads `wakeAt`): either it
                // sees `wakeAt` and wakes this thread, or this sees the push and does not sleep.
                buffer.fence.heavy()
                if ring.pushed.load(ordering: .relaxed) < buffer.wakeAt.load(ordering: .relaxed) {
                    if let deadline {
                        _ = buffer.wakeWriter.wait(timeout: .now() + RecordingBuffer<State, Action>.seconds(until: deadline))
                    } else {
                        buffer.wakeWriter.wait()
                    }
                }
                buffer.contents.withLock { _ = buffer.markWorking(&$0) }
            case let .write(items, events, roomWaiters, stalled, mayHold):
                for waiter in roomWaiters { waiter.signal() }
                // One held at a time: a snapshot reached while another is held (its encoding
                // queued behind that one's) first waits for that one, whose encoding is the
                // further along, and is then held in its turn.
                if progress.heldSnapshot != nil, case .snapshot? = items.first { writeHeldSnapshot(progress: &progress) }
                let held = mayHold ? holdable(items.first, progress: progress, after: taken) : nil
                // Every event handed off is in exactly one take, so this take's last is the
                // previous take's plus its events.
                let through = taken + UInt64(events.reduce(0, +))
                if caseName != nil, let newest = Self.newestEvent(in: items, handedOff: through) { name(newest.0, newest.1) }
                // At most `batchSize` items per transaction, each part ending at the ticket of
                // its last event.
                var start = items.startIndex
                for partEvents in events {
                    var part = items[start..<min(start + max(1, configuration.batchSize), items.endIndex)]
                    if let held, start == items.startIndex {
                        // Held back: the events after it go on without it (it is no event, so
                        // the part's count stands).
                        buffer.contents.withLock { $0.snapshotHeld = true }
                        progress.heldSnapshot = held
                        part = part.dropFirst()
                        if part.isEmpty {
                            start += 1
                            continue
                        }
                    }
                    let began = ContinuousClock.now
                    taken = commit(part, events: partEvents, after: taken, progress: &progress)
                    let duration = ContinuousClock.now - began
                    if measuredTake { pace.committed(events: part.count, batch: max(1, configuration.batchSize), in: duration) }
                    let took = duration.components
                    longestCommit.max(took.seconds * 1_000_000_000 + took.attoseconds / 1_000_000_000, ordering: .relaxed)
                    start = part.endIndex
                    commitsSinceRetention += 1
                    if let retention = retentionIsDue(after: patience) { trim(to: retention) }
                    checkpointWanted = log.wantsCheckpoint
                }
                assert(taken == through, "the parts' events are the take's events")
                taken = through
                if let stalled { letGo(stalled, progress: &progress) }
                spare = items
                spare.removeAll(keepingCapacity: true)
            }
        }
    }

    /// How many of `items` the writer takes at once: at most `batch`, and a state to encode
    /// (a snapshot, a fresh state) begins a take of its own, followed by at most an eighth of
    /// a batch. Encoding a grown state is the dearest item; a take holding one and a whole
    /// batch of events held a waiting dispatch for both.
    ///
    /// With `snapshotsJoinEvents` (``RecordingLog/writesSnapshotsWithEvents``: a store, whose
    /// every transaction costs round trips), a periodic snapshot that comes after events, within
    /// the batch, ends their take instead: it is written in their transaction, one transaction
    /// fewer per snapshot interval. (A fresh state still begins a take: the session recording
    /// resumes in begins from it.)
    static func takeCount(
        _ ring: HandOffRing<RecordingBuffer<State, Action>.Item>, count available: Int, batch: Int, snapshotsJoinEvents: Bool = false
    ) -> Int {
        guard available > 0 else { return 0 }
        // Events are told by the ring's flags (pushed with them), not by looking at the items.
        let startsWithEvent = ring.isFlagged(0)
        let limit = min(available, startsWithEvent ? batch : 1 + max(1, batch / 8))
        var count = 1
        while count < limit, ring.isFlagged(count) { count += 1 }
        assert((0..<limit).allSatisfy { ring.isFlagged($0) == ring.peek($0) { $0.isEvent } }, "a hand-off item's flag says whether it is an event")
        if snapshotsJoinEvents, startsWithEvent, count < limit, ring.peek(count, { $0.isSnapshot }) { count += 1 }
        return count
    }

    /// The last action in `items` and its index, when they hold it. `handedOff`: how many
    /// actions were handed off when `items` were, so the last is that one.
    private static func newestEvent(in items: [RecordingBuffer<State, Action>.Item], handedOff: UInt64) -> (UInt64, Action)? {
        // Only a snapshot of the state after it can follow it.
        for item in items.suffix(2).reversed() {
            if case let .event(dispatched, _) = item { return (handedOff, dispatched.action) }
        }
        return nil
    }

    /// The last action among the ring's next `count` items and its index, when they hold it.
    /// `previous`: the index of the last action taken before them.
    private static func newestEvent(in ring: HandOffRing<RecordingBuffer<State, Action>.Item>, count: Int, after previous: UInt64) -> (UInt64, Action)? {
        let events = UInt64(ring.flaggedCount(count))
        // Only a snapshot of the state after it can follow it.
        for offset in (max(0, count - 2)..<count).reversed() {
            if let action = ring.peek(offset, { item -> Action? in if case let .event(dispatched, _) = copy item { dispatched.action } else { nil } }) {
                return (previous + events, action)
            }
        }
        return nil
    }

    /// Ends the session held as `kind`, recording first a loss not yet recorded (nothing came
    /// after it to resume from, but the log still says what was lost); `false`, with the
    /// failure reported, when the log could not be written.
    ///
    /// A log another writer keeps busy past its busy timeout is tried ``endingRetries`` more
    /// times: this ending is the mark the next launch reads, and a session left unended is
    /// taken for a crash once this process is gone. (A batch of events refused the same way
    /// is a gap instead, and recording goes on: a later write says what was lost; nothing
    /// comes after an ending to say it.)
    private func finishSession(as kind: SessionEnding.Kind, progress: inout Progress) -> Bool {
        var retries = Self.endingRetries
        while true {
            do throws(EventLogError) {
                if let gap = progress.gap {
                    try startPendingSession(progress: &progress)
                    try log.recordGap(progress.gap?.record ?? gap.record)
                    progress.gap = nil
                }
                if let session {
                    sealTriggerReport(progress: &progress, sessionEnding: true)
                    try log.endSession(session.id, as: kind, at: configuration.clock())
                }
                return true
            } catch where error.isBusy && retries > 0 {
                retries -= 1
            } catch {
                buffer.contents.withLock { if $0.unthrownFailure == nil { $0.unthrownFailure = error } }
                report(RecorderFailure(error: error, unrecorded: []))
                return false
            }
        }
    }

    /// How many more times ``finishSession(as:progress:)`` tries a log that was busy: with
    /// SQLite's 5-second busy timeout, an ending waits at most 15 seconds for another writer.
    static var endingRetries: Int { 2 }

    /// Writes one part of the buffer, whose events follow ticket `previous`, then wakes whoever
    /// waited for them and reports failures; returns the ticket of its last event.
    private func commit(_ items: ArraySlice<RecordingBuffer<State, Action>.Item>, events: Int, after previous: UInt64, progress: inout Progress) -> UInt64 {
        let weighedBefore = progress.spacing.snapshotsWeighed
        let (failures, events) = write(items, events: events, after: previous, progress: &progress)
        sealTriggerReport(progress: &progress, sessionEnding: false)
        let through = previous + UInt64(events)
        var wake: [DispatchSemaphore] = []
        // A snapshot written: the next ones are spaced from it on. (Counted while writing, not
        // by a pass over the items: this code runs unspecialised for the app's types, where
        // such a pass cost a few percent of the writer.)
        let snapshotWeighed = progress.spacing.snapshotsWeighed != weighedBefore
        let forecast = progress.spacing.forecast
        buffer.crashMarking?.noteWritten(through, lastSeq: progress.lastSeq ?? 0)
        buffer.contents.withLock { contents in
            contents.written = through
            contents.lastCommit = .now
            contents.busySince = contents.lastCommit
            if snapshotWeighed {
                contents.snapshotForecast = forecast
                // The dispatch path re-spaces the snapshot it handed over last, which may be
                // later than this one, at its next action.
                buffer.divert.bitwiseOr(RecordingBuffer<State, Action>.Divert.forecast, ordering: .relaxed)
            }
            if contents.unthrownFailure == nil { contents.unthrownFailure = failures.first?.error }
            // A suspended write finishing (`.wanted`): its session ends once the buffer is
            // empty, and whoever waits (a `flush()` in the background) waits for that too
            // (`wakeWritten`), so that the session it returns to has ended as suspended.
            // A snapshot held back: whoever waits, waits for it too (`writeHeldSnapshot`).
            guard contents.suspension != .wanted, !contents.snapshotHeld else { return }
            wake = Self.written(through, from: &contents)
        }
        // Report before waking anyone: `flush()` drains the reports after its wait, so once it
        // returns the handler has been told.
        for failure in failures { report(failure) }
        for semaphore in wake { semaphore.signal() }
        return through
    }

    /// Takes the write waiters whose tickets are written, through `through`.
    private static func written(_ through: UInt64, from contents: inout RecordingBuffer<State, Action>.Contents) -> [DispatchSemaphore] {
        var wake: [DispatchSemaphore] = []
        contents.writeWaiters.removeAll { waiter in
            guard waiter.ticket <= through else { return false }
            wake.append(waiter.semaphore)
            return true
        }
        return wake
    }

    /// Wakes the write waiters whose actions are written, which `commit` (and `flush()`) left
    /// waiting while a suspended write finished: its session has ended, or will not (a
    /// `resume()` came first, or a close). Before each sleep too: one lock, mostly uncontended,
    /// a commit or an idle writer's wait — not per action.
    private func wakeWritten() {
        let wake = buffer.contents.withLock { contents in
            contents.writeWaiters.isEmpty || contents.snapshotHeld ? [] : Self.written(contents.written, from: &contents)
        }
        for semaphore in wake { semaphore.signal() }
    }

    /// Whether the first `entered` actions are written (or never will be): settled on the
    /// dispatch path, and nothing in the ring before a fresh state — an action that saw the
    /// suspension's ask hands one over before its event. (A pushed item is seen here once its
    /// action's settling is, the push coming first on the dispatch path.)
    private func written(through entered: UInt64) -> Bool {
        guard buffer.hangWatchdog?.hasSettled(entered) ?? true else { return false }
        return buffer.ring.countForConsumer == 0 || buffer.ring.peek(0) { $0.isFreshState }
    }

    /// Whether the writer folds a state of its own to check invariants in the field.
    var checksInvariants: Bool {
        configuration.reports != nil && !(configuration.invariants?.invariants.isEmpty ?? true)
    }

    /// A session's snapshot spacing, before any periodic snapshot.
    func newSpacing() -> SnapshotSpacing {
        SnapshotSpacing(interval: configuration.snapshotInterval, budget: configuration.snapshotBudget)
    }

    /// What the writer thread carries from one batch to the next.
    struct Progress {
        /// The last seq recorded in the current session; `nil` before any, when a loss comes
        /// after the session's base seq (see ``position(in:)``).
        var lastSeq: Int64?

        /// Where a loss in `session` comes: after its last recorded event, or its base seq.
        func position(in session: LogSession) -> Int64 {
            lastSeq ?? session.baseSeq
        }
        /// Actions lost since a failed write, not yet recorded as a gap.
        var gap: PendingGap<Action>?
        /// The session's tally of event and snapshot sizes, which spaces periodic snapshots.
        var spacing: SnapshotSpacing
        /// The first trigger of a session (an error action, a broken invariant) whose report
        /// waits for the actions after it.
        var trigger: (session: Int64, seq: Int64, reason: ReportReason)?
        /// The session whose trigger has been reported: one report a session.
        var triggerReported: Int64?
        /// The writer's own state of the session, folded from its committed actions, for
        /// ``RecorderConfiguration/invariants``; `nil` when not checking (none configured, or
        /// after a loss until recording resumes from a fresh state).
        var shadow: State?
        /// The tickets of the session's committed actions, by seq: what turns causes into seqs.
        var causes = CausationMap(session: 0)
        /// The session a suspension ended, and where a loss in it comes, until recording
        /// goes on in another: what an action under way at the ending is counted against.
        var suspended: (session: LogSession, position: Int64)?
        /// A snapshot the writer went past while its encoding finished.
        var heldSnapshot: HeldSnapshot?
    }

    /// A periodic snapshot the writer reached while its encoding, made ahead on a thread of
    /// its own (``PendingSnapshot``), was still running, and went past rather than wait: the
    /// events after it are committed meanwhile, and it is written later, in a transaction of
    /// its own, at the seq it follows (``writeHeldSnapshot(progress:)``), once its bytes are
    /// done. One at a time: the snapshots after it are encoded after it, and one reached while
    /// it is held waits for it, so that a writer never waits for more than one encoding (holding
    /// several, a fixed interval of 1,000 at full speed piled up encodings the writer then waited
    /// for together: 134 ms). And only while no other snapshot's encoding is queued behind it:
    /// snapshots then come faster than one thread encodes them, the encoder sets the pace
    /// whatever the writer does, and holding only moved the writer's wait to the next snapshot
    /// (the fixed interval of 1,000's longest dispatch 57–60 ms holding, 43–47 ms waiting,
    /// alternated; the default's, whose snapshots are spaced by their cost, 13–15 ms either way).
    ///
    /// A grown state's encoding (the shop's 1.5 MB of JSON took 22–26 ms on the benchmark's
    /// VM) is longer than the commits the writer paces itself to while dispatch outruns it;
    /// the writer waiting for it let the buffer fill, and it was the longest dispatch of the
    /// defaults burst (`rewind-bench --workload defaults`). A snapshot is derived: one lost
    /// to a crash while held back costs a later restore some folding, never an action. It is
    /// held only when nobody waits for the writer, and only in a log that writes snapshots in
    /// transactions of their own (a file's): anyone who then asks for the writer (a flush, a
    /// close, a suspension) waits for it too.
    struct HeldSnapshot {
        let snapshot: PendingSnapshot<State>
        /// The log and session it belongs to: a log reopened in place (the file replaced)
        /// does not get it.
        let log: any RecordingLog
        let session: LogSession
        /// The seq of the event it follows.
        let seq: Int64
        /// Where it stands among the tickets, as the batch encoding counts a snapshot for the
        /// spacing (``SnapshotSpacing/wroteSnapshot(bytes:ticket:)``): the next event's.
        let ticket: UInt64
    }

    /// `first`, when it is a snapshot the writer may hold back: its encoding is still being made
    /// ahead with no other's queued behind it, a session is being recorded with an event before
    /// it, none is held already, and the log keeps snapshots in transactions of their own. One
    /// held for a log that deflates a session's snapshots in the clear is deflated where it is
    /// encoded (``PendingSnapshot/deflateOnceEncoded()``): its own write is then an insert.
    private func holdable(_ first: RecordingBuffer<State, Action>.Item?, progress: Progress, after taken: UInt64) -> HeldSnapshot? {
        let log = log
        guard case let .snapshot(snapshot)? = first, progress.heldSnapshot == nil, progress.gap == nil, let session,
              let seq = progress.lastSeq, !log.writesSnapshotsWithEvents, snapshot.isBeingEncoded, !snapshot.hasEncodingsQueuedBehind
        else { return nil }
        if log.deflatesSnapshots, session.encryption == nil { snapshot.deflateOnceEncoded() }
        return HeldSnapshot(snapshot: snapshot, log: log, session: session, seq: seq, ticket: taken)
    }

    /// Writes the snapshot held back, waiting for its encoding if it is not done, then wakes
    /// whoever waited for the writer.
    private func writeHeldSnapshot(progress: inout Progress) {
        guard let held = progress.heldSnapshot else { return }
        progress.heldSnapshot = nil
        write(held, progress: &progress)
        let wake = buffer.contents.withLock { contents in
            contents.snapshotHeld = false
            contents.busySince = .now
            // As `commit` wakes them: not while a suspended write finishes (its session's end
            // comes first).
            return contents.suspension == .wanted ? [] : Self.written(contents.written, from: &contents)
        }
        for semaphore in wake { semaphore.signal() }
    }

    /// Writes a snapshot held back in a transaction of its own. A failure is reported as a
    /// snapshot that could not be written is; nothing else is lost.
    private func write(_ held: HeldSnapshot, progress: inout Progress) {
        // Reopened in place: the session is not in this file.
        guard held.log === log else { return }
        let path = log.path, redaction = configuration.redaction
        var written = 0
        var failure: EventLogError?
        do throws(EventLogError) {
            _ = try log.write(session: held.session, events: 0) { codec, emit in
                let encoded: PendingSnapshot<State>.Encoded
                do {
                    encoded = try held.snapshot.encoded(codec: codec.name) { state in try codec.encode(redaction.scrubbed(state)) }
                } catch {
                    failure = .encodingFailed(path: path, seq: nil, actionCase: "state snapshot", reason: "\(error)")
                    return
                }
                written = encoded.state.count
                emit([.snapshot(time: held.snapshot.time, state: encoded.state, seq: held.seq, deflation: encoded.deflation)])
            }
        } catch {
            failure = error
        }
        if let failure {
            report(RecorderFailure(error: failure, unrecorded: []))
            return
        }
        // Spaced from as the batch encoding spaces from a snapshot it writes (see `commit`).
        guard held.session.id == session?.id else { return }
        progress.spacing.wroteSnapshot(bytes: written, ticket: held.ticket)
        let forecast = progress.spacing.forecast
        buffer.contents.withLock { $0.snapshotForecast = forecast }
        buffer.divert.bitwiseOr(RecordingBuffer<State, Action>.Divert.forecast, ordering: .relaxed)
    }

    /// Encodes and commits one batch, `items` holding `itemEvents` events (counted from the
    /// hand-off's flags: a pass over the items here runs unspecialised for the app's types and
    /// cost a few percent of the writer); returns what to report and how many events it held.
    ///
    /// A batch that cannot be committed ends its session: its events, and every event after it
    /// until the dispatch path hands over a fresh state, are tallied as a gap. The gap is written
    /// with a new session starting from that fresh state, in one transaction, once writing works
    /// again (``resume(after:in:items:progress:)``); the rest of the batch goes into the new session.
    private func write(
        _ items: ArraySlice<RecordingBuffer<State, Action>.Item>, events itemEvents: Int, after previous: UInt64, progress: inout Progress
    ) -> (failures: [RecorderFailure<Action>], events: Int) {
        var items = items
        if session == nil, progress.gap == nil, case let .freshState(state, time)? = items.first, let app = boundApp.withLock({ $0 }) {
            // After a suspension ended the session: the next begins from the state before the
            // first action handed off since (asked for when that session ended).
            unstarted.withLock { $0 = Unstarted(app: app, state: state, date: Date(timeIntervalSince1970: time.seconds)) }
            items = items.dropFirst()
        }
        do {
            try startPendingSession(progress: &progress)
        } catch {
            // Still cannot begin: this batch is lost too, after the initial state it will begin
            // from (the gap's session and seq are set when it does).
            var gap = progress.gap ?? PendingGap(session: 0, afterSeq: 0, error: error)
            gap.latest = error
            return lose(items, to: gap, progress: &progress)
        }
        guard var session = session ?? progress.suspended?.session else {
            return Self.unwritten(items, .closed(path: log.path))
        }
        if self.session == nil, progress.gap == nil, let suspended = progress.suspended {
            // An action under way as a suspension ended its session (past the writer's wait
            // for it, or without a hang watchdog to tell): it began before the fresh state was
            // asked for, so no state before it was handed over. It is lost — counted in a gap
            // of the suspended session, recorded with the session the next fresh state (the
            // state after it) begins.
            let error = EventLogError.failed(
                path: log.path, reason: "an action was dispatched while suspend() ended its session, and could not be recorded in either session"
            )
            progress.gap = PendingGap(session: suspended.session.id, afterSeq: suspended.position, error: error)
        }
        if progress.gap == nil, !log.isInPlace {
            // Deleted or replaced: a loss like any failed write, except that recording goes on
            // in a new log at the same path (see `reopen`), from the live state.
            let error = EventLogError.fileVanished(path: log.path)
            return lose(items, to: PendingGap(session: session.id, afterSeq: progress.position(in: session), error: error), progress: &progress)
        }

        var lostEarlier: [RecorderFailure<Action>] = []
        var rest = items
        if let gap = progress.gap {
            switch resume(after: gap, in: session, items: items, progress: &progress) {
            case let .lost(failures, count):
                return (failures, count)
            case let .resumed(resumed, lost, remaining):
                session = resumed
                lostEarlier = lost
                rest = remaining
            }
        }

        var batch: EncodedBatch<Action>?
        var written: ClosedRange<Int64>?
        // Tickets count every event handed off, lost ones too: those skipped above first.
        let skipped = items[..<rest.startIndex].reduce(0) { count, item in if case .event = item { count + 1 } else { count } }
        let firstTicket = previous + UInt64(skipped)
        if progress.causes.session != session.id { progress.causes = CausationMap(session: session.id) }
        do {
            let path = log.path, spacing = progress.spacing, causes = progress.causes
            let buffer = self.buffer
            let inParts = log.sendsRowsInParts
            written = try log.write(session: session, events: itemEvents - skipped) { codec, emit in
                // Encoding is the writer's own work, not a wait on the store: each part and
                // each snapshot encoded (a large state can take a while) move the moment a
                // full buffer counts as stuck from, so that only the store's silence counts
                // toward the stall limit.
                let progressed = { buffer.contents.withLock { $0.busySince = .now } }
                var encoded = EncodedBatch<Action>(firstTicket: firstTicket, spacing: spacing, causes: causes)
                guard inParts else {
                    _ = encode(&encoded, rest, codec, configuration, path, false, progressed)
                    progressed()
                    emit(encoded.writes)
                    // The log's alone now: a log that takes the rows apart moves them instead
                    // of copying them out of an array still shared.
                    encoded.writes = []
                    batch = encoded
                    return
                }
                // Parts of at most `partItems` items, each snapshot beginning one (the encoding
                // stops before it), after an empty part that tells the log a while may pass.
                var start = rest.startIndex
                while start < rest.endIndex {
                    if start > rest.startIndex, case .snapshot = rest[start] { emit([]) }
                    let end = min(start + Self.partItems, rest.endIndex)
                    start += encode(&encoded, rest[start..<end], codec, configuration, path, true, progressed)
                    progressed()
                    emit(encoded.writes)
                }
                batch = encoded
            }
        } catch {
            // The session ends here: its later snapshots would hold these actions' effects.
            let lost = lose(rest, to: PendingGap(session: session.id, afterSeq: progress.position(in: session), error: error), progress: &progress)
            return (lostEarlier + lost.failures, lostEarlier.reduce(0) { $0 + $1.unrecorded.count } + lost.events)
        }
        if let written { progress.lastSeq = written.upperBound }
        guard let batch else { return (lostEarlier, lostEarlier.reduce(0) { $0 + $1.unrecorded.count }) }
        if let written, batch.events == written.count {
            progress.causes = batch.causes
            progress.causes.committed(firstSeq: written.lowerBound)
        } else if batch.events > 0 {
            // Seqs that cannot be told apart: later causes among them read as unknown.
            progress.causes = CausationMap(session: session.id)
        }
        if let written, batch.events == written.count {
            noteTriggers(in: rest, from: written.lowerBound, firstTicket: firstTicket, session: session.id, progress: &progress)
        } else {
            progress.shadow = nil  // some of them failed: the shadow waits for a fresh state
        }
        progress.spacing = batch.spacing
        return (lostEarlier + batch.failures, batch.events + lostEarlier.reduce(0) { $0 + $1.unrecorded.count })
    }

    /// Items in a part of a batch handed to a log that sends rows in parts
    /// (``RecordingLog/sendsRowsInParts``): a store sends one part while the next is encoded,
    /// and a part this size is a few hundred microseconds of encoding.
    static var partItems: Int { 256 }

    /// The actions among `items`, built only for reporting a batch that cannot be written:
    /// this code runs unspecialised for the app's types, where copying every action of every
    /// batch goes through value witnesses and shows in the writer's profile.
    static func actions(in items: ArraySlice<RecordingBuffer<State, Action>.Item>) -> [DispatchedAction<Action>] {
        items.compactMap { item in if case let .event(dispatched, _) = item { dispatched } else { nil } }
    }

    /// `items` reported as not written, for `error`.
    static func unwritten(_ items: ArraySlice<RecordingBuffer<State, Action>.Item>, _ error: EventLogError) -> (failures: [RecorderFailure<Action>], events: Int) {
        let actions = actions(in: items)
        return ([RecorderFailure(error: error, unrecorded: actions)], actions.count)
    }
}

/// Marks the queues that run `onFailure` handlers (one key for every writer's queue).
private let reportsKey = DispatchSpecificKey<Bool>()
