/// Code that watches every action on the store's timeline, before and after the reducer, and may
/// dispatch more actions or start effects.
///
/// A middleware sees each ``DispatchedAction`` (the action and its ``ActionSource``) with the
/// state before the reducer ran (`willReduce`) and with the state after (`didReduce`). Both hooks
/// run on the store's timeline, in the order the reducer sees actions, so a recorder that appends
/// in `didReduce` records exactly that order.
///
/// ```swift
/// let logger = Middleware<ShopState, ShopAction>(didReduce: { dispatched, state, _ in
///     print(dispatched.source, dispatched.action, state.cart.total)
/// })
/// let effects = Middleware<ShopState, ShopAction>(didReduce: { dispatched, _, context in
///     if case .catalogue(.load) = dispatched.action {
///         context.run(.run { send in send(.catalogue(try await api.loaded())) })
///     }
/// })
/// let store = Store(initialState: ShopState(), reducer: Shop.reducer,
///                   middleware: .combine(logger, effects))
/// ```
///
/// A middleware is bound once per store: ``init(bind:)`` receives the store's
/// ``MiddlewareContext`` and returns the ``Hooks`` to call for each action, which is where a
/// stateful middleware creates its per-store state. Hooks must be quick: they run on the dispatch
/// path. Hand slow work to an effect or a thread of your own.
public struct Middleware<State, Action: Sendable>: Sendable {
    /// The per-action calls of a bound middleware. A `nil` hook costs nothing.
    public struct Hooks: Sendable {
        /// Called with each action and the state before the reducer runs.
        public var willReduce: (@Sendable (DispatchedAction<Action>, State) -> Void)?
        /// Called with each action and the state after the reducer ran.
        public var didReduce: (@Sendable (DispatchedAction<Action>, State) -> Void)?

        /// Creates hooks.
        ///
        /// - Parameters:
        ///   - willReduce: Called before the reducer, or `nil`.
        ///   - didReduce: Called after the reducer, or `nil`.
        public init(
            willReduce: (@Sendable (DispatchedAction<Action>, State) -> Void)? = nil,
            didReduce: (@Sendable (DispatchedAction<Action>, State) -> Void)? = nil
        ) {
            self.willReduce = willReduce
            self.didReduce = didReduce
        }
    }

    /// Binds the middleware to a store's context and returns its hooks.
    public let bind: @Sendable (MiddlewareContext<State, Action>) -> Hooks

    /// Creates a middleware that sets itself up once per store.
    ///
    /// - Parameter bind: Receives the store's context and returns the hooks to call per action.
    public init(bind: @escaping @Sendable (MiddlewareContext<State, Action>) -> Hooks) {
        self.bind = bind
    }

    /// Creates a middleware from hooks that receive the context on every call.
    ///
    /// - Parameters:
    ///   - willReduce: Called with each action and the state before the reducer, or `nil`.
    ///   - didReduce: Called with each action and the state after the reducer, or `nil`.
    public init(
        willReduce: (@Sendable (DispatchedAction<Action>, State, MiddlewareContext<State, Action>) -> Void)? = nil,
        didReduce: (@Sendable (DispatchedAction<Action>, State, MiddlewareContext<State, Action>) -> Void)? = nil
    ) {
        self.init { context in
            var hooks = Hooks()
            if let willReduce {
                hooks.willReduce = { dispatched, state in willReduce(dispatched, state, context) }
            }
            if let didReduce {
                hooks.didReduce = { dispatched, state in didReduce(dispatched, state, context) }
            }
            return hooks
        }
    }

    /// A middleware that does nothing.
    public static var none: Middleware {
        Middleware { _ in Hooks() }
    }

    /// Runs several middlewares in order: each hook of the first, then of the second, and so on.
    ///
    /// - Parameter middlewares: Run in order for `willReduce` and `didReduce`.
    /// - Returns: One middleware that runs them all.
    public static func combine(_ middlewares: Middleware...) -> Middleware {
        combine(middlewares)
    }

    /// Runs several middlewares in order: each hook of the first, then of the second, and so on.
    ///
    /// - Parameter middlewares: Run in order for `willReduce` and `didReduce`.
    /// - Returns: One middleware that runs them all.
    public static func combine(_ middlewares: [Middleware]) -> Middleware {
        if middlewares.count == 1 { return middlewares[0] }
        return Middleware { context in
            let bound = middlewares.map { $0.bind(context) }
            return Hooks(
                willReduce: Self.sequence(bound.compactMap(\.willReduce)),
                didReduce: Self.sequence(bound.compactMap(\.didReduce))
            )
        }
    }

    private static func sequence(
        _ hooks: [@Sendable (DispatchedAction<Action>, State) -> Void]
    ) -> (@Sendable (DispatchedAction<Action>, State) -> Void)? {
        switch hooks.count {
        case 0: return nil
        case 1: return hooks[0]
        default: return { dispatched, state in for hook in hooks { hook(dispatched, state) } }
        }
    }

    /// Lifts this middleware onto a larger state and action, so a feature's middleware can run
    /// in the app's store. It sees only the actions `action` extracts; what it dispatches is
    /// wrapped by `embed`.
    ///
    /// - Parameters:
    ///   - state: Projects the larger state to this middleware's state.
    ///   - action: Extracts this middleware's action from the larger action, or returns `nil`.
    ///   - embed: Wraps this middleware's action into the larger action (usually the enum case).
    /// - Returns: A middleware over the larger state and action.
    public func lift<GlobalState, GlobalAction: Sendable>(
        state: @escaping @Sendable (GlobalState) -> State,
        action: @escaping @Sendable (GlobalAction) -> Action?,
        embed: @escaping @Sendable (Action) -> GlobalAction
    ) -> Middleware<GlobalState, GlobalAction> {
        let bind = self.bind
        return Middleware<GlobalState, GlobalAction> { context in
            let hooks = bind(context.scope(state: state, action: embed))
            func lifted(
                _ hook: (@Sendable (DispatchedAction<Action>, State) -> Void)?
            ) -> (@Sendable (DispatchedAction<GlobalAction>, GlobalState) -> Void)? {
                guard let hook else { return nil }
                return { dispatched, globalState in
                    guard let local = action(dispatched.action) else { return }
                    hook(DispatchedAction(local, from: dispatched.source), state(globalState))
                }
            }
            return .init(willReduce: lifted(hooks.willReduce), didReduce: lifted(hooks.didReduce))
        }
    }
}
