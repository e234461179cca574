public import Synchronization

/// Holds an app's state and reduces actions into it on one serialized timeline, running
/// middleware around every action.
///
/// ```swift
/// let store = Store(
///     initialState: ShopState(),
///     reducer: Shop.reducer,
///     middleware: .combine(recorder.middleware, Shop.effects(environment: .simulated))
/// )
/// store.dispatch(.cart(.add(productID: productID, quantity: 1)))
/// print(store.state.cart.total)
/// ```
///
/// ## The timeline
/// `dispatch` may be called from any thread or task. Actions reduce one at a time, first in,
/// first out: each dispatcher's actions reduce in the order it sent them, every action reduces
/// exactly once, and for each action the middleware's `willReduce`, the reducer, the middleware's
/// `didReduce` and the observers run in that order before the next action starts. A dispatch
/// made while an action is being processed — from a middleware, an effect, an observer, another
/// thread, even a reducer — is queued, never re-entered. The thread that finds the store idle
/// processes the queue until it is empty, so an idle store has reduced an action by the time
/// `dispatch` returns.
///
/// Because the order a recorder sees is the order the reducer saw, a log folds back to the same
/// state.
///
/// ## Rules
/// - A reducer must not read the store (``state`` would wait on the lock the reducer runs under).
/// - Middleware hooks and observers run on the dispatching thread: keep them quick.
///
/// Effects started by middleware run as tasks; they are cancelled when the store is released,
/// and a thrown error is passed to the `onEffectFailure` handler, never crashing the store.
public final class Store<State: Sendable, Action: Sendable>: StoreType {
    // The dispatch path is `@inlinable` so that it is specialised for the app's state and
    // action types: unspecialised, half its time went to generic metadata look-ups.
    @usableFromInline
    struct Timeline: Sendable {
        @usableFromInline var isProcessing = false
        @usableFromInline var pending = PendingActions<DispatchedAction<Action>>()
        /// How many actions have been accepted, and how many of them processed: an action's
        /// ticket is `accepted` after it joined, and it is done once `processed` reaches it.
        @usableFromInline var accepted: UInt64 = 0
        @usableFromInline var processed: UInt64 = 0
        /// Callers of ``send(_:from:)`` waiting for their ticket (empty, unallocated, unless
        /// someone awaits).
        @usableFromInline var waiters: [(ticket: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
        init() {}

        /// The waiters whose action has been processed, removed from the list.
        @usableFromInline
        mutating func takeFinishedWaiters() -> [CheckedContinuation<Void, Never>] {
            let processed = self.processed
            let finished = waiters.filter { $0.ticket <= processed }.map(\.continuation)
            waiters.removeAll { $0.ticket <= processed }
            return finished
        }
    }

    @usableFromInline let cell: StateCell<State>
    @usableFromInline let timeline = Mutex(Timeline())
    @usableFromInline let reduce: @Sendable (inout State, Action) -> Void
    @usableFromInline let willReduce: (@Sendable (DispatchedAction<Action>, State) -> Void)?
    @usableFromInline let didReduce: (@Sendable (DispatchedAction<Action>, State) -> Void)?
    /// This store's tag in its actions' tickets (see ``ActionTicket``).
    @usableFromInline let ticketTag: UInt64
    /// Whether actions get causes; off only for the benchmark that prices them.
    @usableFromInline let tracksCauses: Bool
    private let effects: EffectRunner<Action>
    private let send: Send<Action>

    /// Creates a store.
    ///
    /// - Parameters:
    ///   - initialState: The state before any action.
    ///   - reducer: Applies actions to the state.
    ///   - middleware: Watches every action and may dispatch more or start effects; bound to
    ///     this store now.
    ///   - onEffectFailure: Receives errors thrown by effects, with the source that started
    ///     them. By default they are printed to standard error.
    public convenience init(
        initialState: State,
        reducer: Reducer<State, Action>,
        middleware: Middleware<State, Action> = .none,
        onEffectFailure: @escaping @Sendable (EffectFailure) -> Void = EffectFailure.printToStandardError
    ) {
        self.init(initialState: initialState, reducer: reducer, middleware: middleware, onEffectFailure: onEffectFailure, tracksCauses: true)
    }

    /// Creates a store that may leave causes out: what the dispatch benchmark compares against.
    package init(
        initialState: State,
        reducer: Reducer<State, Action>,
        middleware: Middleware<State, Action> = .none,
        onEffectFailure: @escaping @Sendable (EffectFailure) -> Void = EffectFailure.printToStandardError,
        tracksCauses: Bool
    ) {
        self.ticketTag = ActionTicket.newStoreTag()
        self.tracksCauses = tracksCauses
        let cell = StateCell(initialState)
        let link = StoreLink<State, Action>()
        let effects = EffectRunner<Action>(report: onEffectFailure)
        let send = Send<Action> { action, source in link.store?.dispatch(action, from: source) }
        let hooks = middleware.bind(MiddlewareContext(
            state: { cell.state },
            dispatch: { action, source in link.store?.dispatch(action, from: source) },
            run: { effect in effects.start(effect, send: send) }
        ))
        self.cell = cell
        self.reduce = reducer.reduce
        self.willReduce = hooks.willReduce
        self.didReduce = hooks.didReduce
        self.effects = effects
        self.send = send
        link.connect(self)
    }

    deinit {
        effects.shutDown()
        cell.finishAll()
    }

    /// The current state.
    @inlinable
    public var state: State {
        cell.state
    }

    /// Dispatches an action with an explicit source (kept as it is).
    ///
    /// - Parameters:
    ///   - action: The action to reduce.
    ///   - source: Where it came from.
    @inlinable
    public func dispatch(_ action: Action, from source: ActionSource) {
        var dispatched = DispatchedAction(action, from: source, ticket: .untracked, cause: tracksCauses ? ActionCause.current : nil)
        let processHere = timeline.withLock { timeline in
            timeline.accepted &+= 1
            if tracksCauses { dispatched.ticket = .store(tag: ticketTag, count: timeline.accepted) }
            if timeline.isProcessing {
                timeline.pending.append(dispatched)
                return false
            }
            timeline.isProcessing = true
            return true
        }
        guard processHere else { return }
        drain(startingWith: dispatched)
    }

    /// Dispatches an action with an explicit source and resumes once it has been processed:
    /// reduced, every middleware's `didReduce` run and observers told — even when the store was
    /// busy and the action had to queue behind others (``dispatch(_:from:)`` then returns at
    /// once). With a recorder whose durability is synchronous, the action is committed to the
    /// log by then.
    ///
    /// - Parameters:
    ///   - action: The action to reduce.
    ///   - source: Where it came from.
    public func send(_ action: Action, from source: ActionSource) async {
        var dispatched = DispatchedAction(action, from: source, ticket: .untracked, cause: tracksCauses ? ActionCause.current : nil)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let processHere = timeline.withLock { timeline in
                timeline.accepted &+= 1
                if tracksCauses { dispatched.ticket = .store(tag: ticketTag, count: timeline.accepted) }
                timeline.waiters.append((timeline.accepted, continuation))
                if timeline.isProcessing {
                    timeline.pending.append(dispatched)
                    return false
                }
                timeline.isProcessing = true
                return true
            }
            if processHere { drain(startingWith: dispatched) }
        }
    }

    /// Processes `first`, then every action queued meanwhile, until the queue is empty; resumes
    /// the ``send(_:from:)`` callers whose actions are done.
    @inlinable
    func drain(startingWith first: DispatchedAction<Action>) {
        var next: DispatchedAction<Action>? = first
        while let current = next {
            process(current)
            var finished: [CheckedContinuation<Void, Never>]?
            next = timeline.withLock { timeline in
                timeline.processed &+= 1
                if !timeline.waiters.isEmpty { finished = timeline.takeFinishedWaiters() }
                if let queued = timeline.pending.popFirst() { return queued }
                timeline.isProcessing = false
                return nil
            }
            if let finished { for continuation in finished { continuation.resume() } }
        }
    }

    /// Processes one action with it as the cause of whatever is dispatched meanwhile: by
    /// middleware, by the effects they start, by observers.
    @inlinable
    func process(_ dispatched: DispatchedAction<Action>) {
        if tracksCauses {
            ActionCause.whileProcessing(dispatched.asCause) { processUnbound(dispatched) }
        } else {
            processUnbound(dispatched)
        }
    }

    @inlinable
    func processUnbound(_ dispatched: DispatchedAction<Action>) {
        if let willReduce {
            willReduce(dispatched, cell.state)
        }
        let reduce = self.reduce
        let (state, subscribers) = cell.reduce { reduce(&$0, dispatched.action) }
        if let didReduce {
            didReduce(dispatched, state)
        }
        for subscriber in subscribers {
            subscriber.deliver(state)
        }
    }

    /// Subscribes to state changes.
    public func _subscribe(
        includingCurrent: Bool,
        deliver: @escaping @Sendable (State) -> Void,
        finish: (@Sendable () -> Void)?
    ) -> @Sendable () -> Void {
        cell.subscribe(includingCurrent: includingCurrent, deliver: deliver, finish: finish)
    }

    /// Starts an effect on this store, as a middleware would.
    ///
    /// - Parameter effect: The work to start; its actions are dispatched with their sources.
    public func run(_ effect: Effect<Action>) {
        effects.start(effect, send: send)
    }

    /// How many effects are running now.
    public var runningEffectCount: Int {
        effects.count
    }

    /// Whether the store is idle now: no action queued or being processed, and no effect
    /// running. Unlike ``waitUntilIdle()``, asking never waits, so a caller with a deadline
    /// (a test's timeout) can give up on an effect that never ends.
    public var isIdle: Bool {
        effects.count == 0 && timeline.withLock { !$0.isProcessing && $0.pending.isEmpty }
    }

    /// Returns once the store is idle: no action queued or being processed, and no effect
    /// running (so every action an effect feeds back has been reduced).
    ///
    /// Scripted sessions and tests use this to step deterministically; an effect that never
    /// ends (a timer, a subscription) keeps the store from ever being idle.
    public func waitUntilIdle() async {
        while true {
            await effects.waitUntilNoneRunning()
            let timelineIsIdle = timeline.withLock { !$0.isProcessing && $0.pending.isEmpty }
            if timelineIsIdle && effects.count == 0 { return }
            // An effect's last action may still be reducing on another thread: let it finish.
            await Task.yield()
        }
    }

    /// Dispatches an action from the caller's location and resumes once it has been processed
    /// (see ``send(_:from:)``).
    ///
    /// ```swift
    /// await store.send(.checkout(.submit(orderID: id, at: now)))
    /// // reduced, and with synchronous durability committed to the log
    /// ```
    ///
    /// - Parameters:
    ///   - action: The action to reduce.
    ///   - info: An optional note for its source.
    ///   - file: The file recorded as the source (the caller's `#fileID` by default).
    ///   - function: The function recorded as the source (the caller's by default).
    ///   - line: The line recorded as the source (the caller's by default).
    ///   - column: The column recorded as the source (the caller's by default).
    public func send(
        _ action: Action,
        info: String? = nil,
        file: String = #fileID,
        function: String = #function,
        line: UInt = #line,
        column: UInt = #column
    ) async {
        await send(action, from: ActionSource(file: file, function: function, line: line, column: column, info: info))
    }
}
