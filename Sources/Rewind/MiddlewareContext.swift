/// What a middleware can do besides watching: read the current state, dispatch actions and start
/// effects.
///
/// A middleware receives its context once, when a store binds it (see ``Middleware``). Actions it
/// dispatches are queued behind the one being processed — never reduced re-entrantly — and their
/// sources are marked ``ActionSource/Origin/middleware``.
public struct MiddlewareContext<State, Action: Sendable>: Sendable {
    private let readState: @Sendable () -> State
    private let deliver: @Sendable (Action, ActionSource) -> Void
    private let start: @Sendable (Effect<Action>) -> Void

    /// Creates a context from the three things a store provides.
    ///
    /// - Parameters:
    ///   - state: Reads the store's current state.
    ///   - dispatch: Queues an action with its source.
    ///   - run: Starts an effect.
    public init(
        state: @escaping @Sendable () -> State,
        dispatch: @escaping @Sendable (Action, ActionSource) -> Void,
        run: @escaping @Sendable (Effect<Action>) -> Void
    ) {
        self.readState = state
        self.deliver = dispatch
        self.start = run
    }

    /// The store's current state.
    ///
    /// Inside a hook, prefer the state the hook was given: this reads whatever the store holds
    /// now, which from an effect may already be newer.
    public var state: State { readState() }

    /// Queues an action behind the one being processed.
    ///
    /// - Parameters:
    ///   - action: The action to queue behind the one being processed.
    ///   - info: An optional note for its source.
    ///   - file: The file recorded as the source (the caller's `#fileID` by default).
    ///   - function: The function recorded as the source (the caller's by default).
    ///   - line: The line recorded as the source (the caller's by default).
    ///   - column: The column recorded as the source (the caller's by default).
    public func dispatch(
        _ action: Action,
        info: String? = nil,
        file: String = #fileID,
        function: String = #function,
        line: UInt = #line,
        column: UInt = #column
    ) {
        deliver(
            action,
            ActionSource(file: file, function: function, line: line, column: column, info: info, origin: .middleware)
        )
    }

    /// Queues an action with an explicit source, kept as it is.
    ///
    /// - Parameters:
    ///   - action: The action to queue behind the one being processed.
    ///   - source: Its source.
    public func dispatch(_ action: Action, from source: ActionSource) {
        deliver(action, source)
    }

    /// Starts an effect.
    ///
    /// - Parameter effect: The work to start; its actions are dispatched with their sources.
    public func run(_ effect: Effect<Action>) {
        start(effect)
    }

    /// A context for a middleware of a smaller state and action, living inside this one.
    ///
    /// - Parameters:
    ///   - toLocalState: Projects this state to the smaller one.
    ///   - embed: Wraps a smaller action into this action.
    /// - Returns: The smaller context.
    public func scope<LocalState, LocalAction: Sendable>(
        state toLocalState: @escaping @Sendable (State) -> LocalState,
        action embed: @escaping @Sendable (LocalAction) -> Action
    ) -> MiddlewareContext<LocalState, LocalAction> {
        let readState = self.readState, deliver = self.deliver, start = self.start
        return MiddlewareContext<LocalState, LocalAction>(
            state: { toLocalState(readState()) },
            dispatch: { action, source in deliver(embed(action), source) },
            run: { effect in start(effect.map(embed)) }
        )
    }
}
