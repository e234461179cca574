public import Rewind
import Synchronization

/// A state machine driven by feedbacks, Spin style: a reducer folds events into the state, and
/// feedbacks look at each new state and answer with more events.
///
/// ```swift
/// let loop = FeedbackLoop(initialState: Levels(left: 0, right: 10), reducer: Levels.reducer) {
///     Feedback("left") { $0.left < $0.right ? .raiseLeft : nil }
///     Feedback("right") { $0.right > $0.left ? .lowerRight : nil }
/// }
/// let running = loop.start()     // keep it: releasing it stops the loop
/// loop.dispatch(.reset)          // events from outside, like a store's actions
/// ```
///
/// A loop runs on a `Store`, so everything a store does, it does: middleware sees every event,
/// a recorder middleware records the loop into a Rewind log (each event's source names the
/// feedback that sent it), and the log replays with the same reducer.
///
/// ## Turns
/// The loop works in turns. Events wait in the loop's inbox, first in, first out — from
/// feedbacks, from ``dispatch(_:from:)``, from gears. A turn reduces every waiting event, then
/// hands the resulting state to each feedback in declaration order: reactions answer at once
/// (their events join the inbox), effects start their work, stream feedbacks get the state. The
/// next turn begins as soon as the inbox has events again. Feedbacks thus see settled states,
/// never the middle of a burst; the log and ``states`` still see every intermediate state.
/// A loop of reactions is deterministic.
///
/// ## Lifetime
/// ``start()`` returns a ``Running`` handle: the loop runs until ``Running/stop()`` or until the
/// handle is released. Store the handle in the object whose life the loop should share.
/// Feedbacks hold the loop weakly, so a stopped loop that nobody references is released.
public final class FeedbackLoop<State: Sendable, Event: Sendable>: StoreType {
    /// The store the loop reduces into: middleware, recording and observation live here.
    public let store: Store<State, Event>
    /// The loop's feedbacks, in declaration order.
    public let feedbacks: [Feedback<State, Event>]

    private struct Engine: Sendable {
        var inbox = PendingActions<DispatchedAction<Event>>()
        var isProcessing = false
        var stateChanged = false
        /// The started feedbacks; `nil` while the loop is stopped.
        var runs: [FeedbackRun<State, Event>]?
        /// Counts starts, so that a handle of an earlier run cannot stop a later one.
        var generation: UInt64 = 0
        /// Per-state feedback work started and not yet ended.
        var runningWork = 0
        var settledWaiters: [CheckedContinuation<Void, Never>] = []

        var isSettled: Bool { !isProcessing && inbox.isEmpty && runningWork == 0 }

        mutating func takeSettledWaiters() -> [CheckedContinuation<Void, Never>] {
            defer { settledWaiters.removeAll() }
            return settledWaiters
        }
    }

    private let engine = Mutex(Engine())
    private let onFeedbackFailure: @Sendable (EffectFailure) -> Void
    private let observation = Mutex<StoreObservation?>(nil)

    /// Creates a stopped loop from feedbacks listed in a builder.
    ///
    /// - Parameters:
    ///   - initialState: The state before any event.
    ///   - reducer: Folds events into the state. It must be pure, like any Rewind reducer.
    ///   - middleware: Watches every event (a recorder, a logger, effects), as on a store.
    ///   - onEffectFailure: Receives errors thrown by feedbacks and by middleware effects, with
    ///     the source of the feedback or effect. By default, one line on standard error.
    ///   - feedbacks: The rules that react to each state with events.
    public convenience init(
        initialState: State,
        reducer: Reducer<State, Event>,
        middleware: Middleware<State, Event> = .none,
        onEffectFailure: @escaping @Sendable (EffectFailure) -> Void = EffectFailure.printToStandardError,
        @FeedbackBuilder<State, Event> feedbacks: () -> [Feedback<State, Event>]
    ) {
        self.init(
            initialState: initialState, reducer: reducer, middleware: middleware,
            onEffectFailure: onEffectFailure, feedbacks: feedbacks()
        )
    }

    /// Creates a stopped loop.
    ///
    /// - Parameters:
    ///   - initialState: The state before any event.
    ///   - reducer: Folds events into the state.
    ///   - middleware: Watches every event, as on a store.
    ///   - onEffectFailure: Receives errors thrown by feedbacks and by middleware effects.
    ///   - feedbacks: The feedbacks, in the order they see each state.
    public init(
        initialState: State,
        reducer: Reducer<State, Event>,
        middleware: Middleware<State, Event> = .none,
        onEffectFailure: @escaping @Sendable (EffectFailure) -> Void = EffectFailure.printToStandardError,
        feedbacks: [Feedback<State, Event>]
    ) {
        self.store = Store(
            initialState: initialState, reducer: reducer, middleware: middleware, onEffectFailure: onEffectFailure
        )
        self.feedbacks = feedbacks
        self.onFeedbackFailure = onEffectFailure
        // Events that reach the store another way (a middleware's effect) also end a turn.
        let observation = store.observe { [weak self] _ in self?.stateDidChange() }
        self.observation.withLock { $0 = observation }
    }

    deinit {
        let runs = engine.withLock { $0.runs }
        for run in runs ?? [] { run.stop() }
    }

    // MARK: StoreType

    /// The current state.
    public var state: State { store.state }

    /// Sends an event into the loop from outside (a view, a test): it joins the inbox behind the
    /// events already waiting. Events are reduced whether or not the loop is started; feedbacks
    /// only answer while it runs.
    ///
    /// - Parameters:
    ///   - event: The event to reduce, recorded with the caller's location as its source.
    ///   - source: Where it came from.
    public func dispatch(_ event: Event, from source: ActionSource) {
        enqueue(event, from: source)
    }

    /// Subscribes to state changes (every intermediate state, not only settled ones).
    public func _subscribe(
        includingCurrent: Bool,
        deliver: @escaping @Sendable (State) -> Void,
        finish: (@Sendable () -> Void)?
    ) -> @Sendable () -> Void {
        store._subscribe(includingCurrent: includingCurrent, deliver: deliver, finish: finish)
    }

    // MARK: Running

    /// Starts the feedbacks; they see the current state at once.
    ///
    /// Starting a loop that is already running is a programming error.
    ///
    /// - Returns: The handle that keeps the loop running; release it or call
    ///   ``Running/stop()`` to stop.
    @discardableResult
    public func start() -> Running {
        let runs = feedbacks.map { feedback in
            let source = feedback.source
            return FeedbackRun(
                feedback: feedback,
                emit: { [weak self] event in self?.enqueue(event, from: source) },
                report: { [onFeedbackFailure] error in
                    onFeedbackFailure(EffectFailure(error: error, source: source, id: nil))
                },
                workBegan: { [weak self] in self?.engine.withLock { $0.runningWork += 1 } },
                workEnded: { [weak self] in self?.changeRunningWork(by: -1) }
            )
        }
        // Stream feedbacks get their stream before any turn can deliver a state to them.
        for run in runs { run.start() }
        let generation = engine.withLock { engine in
            precondition(engine.runs == nil, "FeedbackLoop.start() called on a loop that is already running")
            engine.runs = runs
            engine.stateChanged = true
            engine.generation += 1
            return engine.generation
        }
        processIfIdle()
        return Running(self, generation: generation)
    }

    /// Whether the loop is started.
    public var isRunning: Bool {
        engine.withLock { $0.runs != nil }
    }

    /// Stops the feedbacks: running work is cancelled and no feedback sees another state.
    /// Events already waiting are still reduced. Stopping a stopped loop does nothing.
    public func stop() {
        stop(generation: nil)
    }

    /// Stops the run started as `generation`, or whatever runs when `nil`.
    fileprivate func stop(generation: UInt64?) {
        let runs = engine.withLock { engine -> [FeedbackRun<State, Event>]? in
            if let generation, generation != engine.generation { return nil }
            defer { engine.runs = nil }
            return engine.runs
        }
        for run in runs ?? [] { run.stop() }
    }

    /// Returns once the loop is settled: no event waiting or being reduced, no per-state
    /// feedback work running, and the store's own effects done.
    ///
    /// Stream feedbacks run for the loop's life and are not waited for. Tests use this to step a
    /// loop; a feedback whose work never ends keeps the loop from ever settling.
    public func waitUntilSettled() async {
        while true {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let settled = engine.withLock { engine in
                    if engine.isSettled { return true }
                    engine.settledWaiters.append(waiter)
                    return false
                }
                if settled { waiter.resume() }
            }
            await store.waitUntilIdle()
            if engine.withLock({ $0.isSettled }) { return }
        }
    }

    // MARK: Turns

    private func enqueue(_ event: Event, from source: ActionSource) {
        engine.withLock { $0.inbox.append(DispatchedAction(event, from: source)) }
        processIfIdle()
    }

    private func stateDidChange() {
        engine.withLock { $0.stateChanged = true }
        processIfIdle()
    }

    private func changeRunningWork(by delta: Int) {
        let waiters = engine.withLock { engine in
            engine.runningWork += delta
            return engine.isSettled ? engine.takeSettledWaiters() : []
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Runs turns on this thread unless another thread already does.
    private func processIfIdle() {
        let processHere = engine.withLock { engine in
            if engine.isProcessing { return false }
            engine.isProcessing = true
            return true
        }
        if processHere { process() }
    }

    private enum Step {
        case reduce(DispatchedAction<Event>)
        case deliver([FeedbackRun<State, Event>])
        case idle([CheckedContinuation<Void, Never>])
    }

    private func process() {
        while true {
            let step: Step = engine.withLock { engine in
                if let next = engine.inbox.popFirst() { return .reduce(next) }
                if engine.stateChanged {
                    engine.stateChanged = false
                    if let runs = engine.runs { return .deliver(runs) }
                }
                engine.isProcessing = false
                return .idle(engine.isSettled ? engine.takeSettledWaiters() : [])
            }
            switch step {
            case let .reduce(dispatched):
                store.dispatch(dispatched.action, from: dispatched.source)
            case let .deliver(runs):
                let state = store.state
                for run in runs { run.deliver(state) }
            case let .idle(waiters):
                for waiter in waiters { waiter.resume() }
                return
            }
        }
    }
}

extension FeedbackLoop {
    /// A started loop. The loop runs as long as this handle lives, or until ``stop()``.
    ///
    /// ```swift
    /// final class ScreenModel {
    ///     let loop: FeedbackLoop<Screen, Screen.Event>
    ///     private var running: FeedbackLoop<Screen, Screen.Event>.Running?
    ///     init(loop: FeedbackLoop<Screen, Screen.Event>) { self.loop = loop }
    ///     func appear() { running = loop.start() }
    ///     func disappear() { running = nil }   // stops the loop
    /// }
    /// ```
    public final class Running: Sendable {
        /// The running loop.
        public let loop: FeedbackLoop
        private let generation: UInt64

        init(_ loop: FeedbackLoop, generation: UInt64) {
            self.loop = loop
            self.generation = generation
        }

        /// Stops the loop, if it is still the run this handle started.
        public func stop() {
            loop.stop(generation: generation)
        }

        deinit {
            loop.stop(generation: generation)
        }
    }
}
