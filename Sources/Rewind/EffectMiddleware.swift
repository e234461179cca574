
/// SwiftRex's effect middleware on the Rewind store: maps each action (with its source and a
/// getter for the current state) to an effect, whose work gets the dependencies injected when
/// the middleware is built.
///
/// ```swift
/// let effects = EffectMiddleware<ShopState, ShopAction, CatalogueAPI>.onAction { action, source, state in
///     switch action {
///     case .catalogue(.load): .task(token: "load", cancelInFlight: true) { api in try await .catalogue(api.loaded()) }
///     case .cart(.clear): .toCancel("load")
///     default: .doNothing
///     }
/// }
/// let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: effects.inject(CatalogueAPI.live))
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
