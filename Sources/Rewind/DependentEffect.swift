/// The effect of one action, waiting for the dependencies it will run with.
///
/// Built with SwiftRex's familiar constructors; the dependencies reach only the effect's work,
/// never the code that chooses the effect.
///
/// ```swift
/// let catalogue = EffectMiddleware<ShopState, ShopAction, CatalogueAPI>.onAction { action, _, _ in
///     switch action {
///     case .catalogue(.load):
///         return .task(token: "load") { api in try await .catalogue(api.loaded()) }
///     case .cart(.clear):
///         return .toCancel("load")
///     default:
///         return .doNothing
///     }
/// }
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
