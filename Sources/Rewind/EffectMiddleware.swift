/// The effect of one action, waiting for the dependencies it will run with.
///
/// Built with SwiftRex's familiar constructors; the dependencies reach only the effect's work,
/// never the code that chooses the effect.
///
/// ```swift
/// case .refresh:
///     return .task { api in .loaded(try await api.fetch()) }
/// case .cancelRefresh:
///     return .toCancel("refresh")
/// ```
public struct DependentEffect<Action: Sendable, Dependencies: Sendable>: Sendable {
    let make: @Sendable (Dependencies) -> Effect<Action>

    /// An effect made from the dependencies.
    ///
    /// - Parameter make: Builds the effect.
    public init(_ make: @escaping @Sendable (Dependencies) -> Effect<Action>) {
        self.make = make
    }

    /// Does nothing.
    public static var doNothing: DependentEffect { DependentEffect { _ in .none } }

    /// Dispatches one action.
    public static func just(_ action: Action, file: String = #fileID, function: String = #function, line: UInt = #line) -> DependentEffect {
        DependentEffect { _ in .send(action, file: file, function: function, line: line) }
    }

    /// Dispatches several actions, in order.
    public static func sequence(_ actions: [Action], file: String = #fileID, function: String = #function, line: UInt = #line) -> DependentEffect {
        DependentEffect { _ in .merge(actions.map { .send($0, file: file, function: function, line: line) }) }
    }

    /// Runs work for its side effects only; it dispatches nothing.
    public static func fireAndForget(
        token: EffectID? = nil,
        file: String = #fileID, function: String = #function, line: UInt = #line,
        _ work: @escaping @Sendable (Dependencies) async throws -> Void
    ) -> DependentEffect {
        DependentEffect { dependencies in
            .run(id: token, file: file, function: function, line: line) { _ in try await work(dependencies) }
        }
    }

    /// Runs async work and dispatches the action it returns, if any.
    public static func task(
        token: EffectID? = nil,
        cancelInFlight: Bool = false,
        file: String = #fileID, function: String = #function, line: UInt = #line,
        _ work: @escaping @Sendable (Dependencies) async throws -> Action?
    ) -> DependentEffect {
        DependentEffect { dependencies in
            .run(id: token, cancelInFlight: cancelInFlight, file: file, function: function, line: line) { send in
                if let action = try await work(dependencies) { send(action, file: file, function: function, line: line) }
            }
        }
    }

    /// Bridges callback-based work: it calls `complete` once with the action to dispatch.
    public static func promise(
        token: EffectID? = nil,
        file: String = #fileID, function: String = #function, line: UInt = #line,
        _ work: @escaping @Sendable (Dependencies, _ complete: @escaping @Sendable (Action) -> Void) -> Void
    ) -> DependentEffect {
        task(token: token, file: file, function: function, line: line) { dependencies in
            await withCheckedContinuation { continuation in
                work(dependencies) { continuation.resume(returning: $0) }
            }
        }
    }

    /// Runs work that sends any number of actions. A token makes it cancellable; with
    /// `.cancelInFlight` a new run replaces the running one, with `.deduplicate` a new run is
    /// dropped while one is running.
    public static func run(
        token: EffectID? = nil,
        policy: TokenPolicy = .cancelInFlight,
        file: String = #fileID, function: String = #function, line: UInt = #line,
        _ work: @escaping @Sendable (Dependencies, Send<Action>) async throws -> Void
    ) -> DependentEffect {
        DependentEffect { dependencies in
            if let token, policy == .deduplicate {
                return .runOnce(id: token, file: file, function: function, line: line) { send in try await work(dependencies, send) }
            }
            return .run(id: token, cancelInFlight: token != nil && policy == .cancelInFlight, file: file, function: function, line: line) { send in
                try await work(dependencies, send)
            }
        }
    }

    /// Cancels the running effects with this token.
    public static func toCancel(_ token: EffectID) -> DependentEffect {
        DependentEffect { _ in .cancel(id: token) }
    }

    /// Several effects at once.
    public static func merge(_ effects: DependentEffect...) -> DependentEffect {
        DependentEffect { dependencies in .merge(effects.map { $0.make(dependencies) }) }
    }

    /// What a new run does when one with the same token is running.
    public enum TokenPolicy: Sendable, Equatable {
        /// Cancel the running one and start the new one.
        case cancelInFlight
        /// Keep the running one and drop the new one.
        case deduplicate
        /// Run both (the token is only for cancelling).
        case runBoth
    }
}

/// SwiftRex's effect middleware on the Rewind store: maps each action (with its source and a
/// getter for the current state) to an effect, whose work gets the dependencies injected when
/// the middleware is built.
///
/// ```swift
/// let effects = EffectMiddleware<AppState, AppAction, API>.onAction { action, source, state in
///     switch action {
///     case .refresh: .task(token: "refresh", cancelInFlight: true) { api in .loaded(try await api.fetch()) }
///     case .stop: .toCancel("refresh")
///     default: .doNothing
///     }
/// }
/// let store = Store(initialState: AppState(), reducer: appReducer, middleware: effects.inject(LiveAPI()))
/// ```
///
/// The handler runs after the reducer, on the store's timeline; the effects' actions are
/// dispatched with their own sources, like every effect's, and recorded like any other action.
public struct EffectMiddleware<State: Sendable, Action: Sendable, Dependencies: Sendable>: Sendable {
    /// Chooses the effect of an action.
    public typealias Handler = @Sendable (_ action: Action, _ source: ActionSource, _ state: @escaping @Sendable () -> State) -> DependentEffect<Action, Dependencies>

    let handler: Handler

    /// An effect middleware choosing effects with `handler`.
    ///
    /// - Parameter handler: Receives each action, its source and a current-state getter.
    /// - Returns: The effect middleware, still waiting for its dependencies.
    public static func onAction(_ handler: @escaping Handler) -> EffectMiddleware {
        EffectMiddleware(handler: handler)
    }

    /// The middleware, with its dependencies.
    ///
    /// - Parameter dependencies: What the effects' work may use (clients, clocks, ids).
    /// - Returns: A middleware for the store.
    public func inject(_ dependencies: Dependencies) -> Middleware<State, Action> {
        let handler = self.handler
        return Middleware(didReduce: { dispatched, _, context in
            context.run(handler(dispatched.action, dispatched.source, { context.state }).make(dependencies))
        })
    }

    /// Lifts onto a larger state and action (see ``Middleware/lift(state:action:embed:)``).
    public func lift<GlobalState: Sendable, GlobalAction: Sendable>(
        state: @escaping @Sendable (GlobalState) -> State,
        action: @escaping @Sendable (GlobalAction) -> Action?,
        embed: @escaping @Sendable (Action) -> GlobalAction
    ) -> EffectMiddleware<GlobalState, GlobalAction, Dependencies> {
        let handler = self.handler
        return .onAction { globalAction, source, globalState in
            guard let local = action(globalAction) else { return .doNothing }
            let effect = handler(local, source, { state(globalState()) })
            return DependentEffect { dependencies in effect.make(dependencies).map(embed) }
        }
    }
}
