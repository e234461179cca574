/// Asynchronous work that feeds its results back to the store as actions.
///
/// Middleware starts effects through ``MiddlewareContext/run(_:)``. An effect is a description;
/// the store runs it. Effects never run during replay: their results were dispatched as actions,
/// and those are in the log.
///
/// ```swift
/// let payment = Middleware<ShopState, ShopAction>(didReduce: { dispatched, _, context in
///     guard case let .checkout(.submit(orderID, _)) = dispatched.action else { return }
///     context.run(.run(id: "payment") { send in
///         let receipt = try await payments.charge(orderID)
///         send(.checkout(.paymentSucceeded(orderID: orderID, receipt: receipt)))
///     })
/// })
/// ```
///
/// A thrown error (other than `CancellationError`) ends the effect and is reported to the
/// store's failure handler as an ``EffectFailure`` naming the line that created the effect.
public struct Effect<Action: Sendable>: Sendable {
    /// One piece of async work with its identity and origin.
    struct Run: Sendable {
        var id: EffectID?
        var cancelInFlight: Bool
        /// Don't start when an effect with the same `id` is running.
        var deduplicate = false
        var priority: TaskPriority?
        var source: ActionSource
        var operation: @Sendable (Send<Action>) async throws -> Void
    }

    enum Operation: Sendable {
        case none
        case send(Action, ActionSource)
        case run(Run)
        case cancel(EffectID)
        case merge([Effect])
    }

    let operation: Operation

    init(_ operation: Operation) {
        self.operation = operation
    }

    /// An effect that does nothing.
    public static var none: Effect { Effect(.none) }

    /// An effect that dispatches one action right away (queued behind the current one).
    ///
    /// - Parameters:
    ///   - action: The action to dispatch.
    ///   - info: An optional note for its source.
    ///   - file: The file recorded as the source (the caller's `#fileID` by default).
    ///   - function: The function recorded as the source (the caller's by default).
    ///   - line: The line recorded as the source (the caller's by default).
    ///   - column: The column recorded as the source (the caller's by default).
    /// - Returns: The effect.
    public static func send(
        _ action: Action,
        info: String? = nil,
        file: String = #fileID,
        function: String = #function,
        line: UInt = #line,
        column: UInt = #column
    ) -> Effect {
        Effect(.send(
            action,
            ActionSource(file: file, function: function, line: line, column: column, info: info, origin: .effect)
        ))
    }

    /// An effect that runs async work, feeding actions back through ``Send``.
    ///
    /// - Parameters:
    ///   - id: Identifies the run, so ``cancel(id:)`` can stop it.
    ///   - cancelInFlight: Cancels running effects with the same `id` before this one starts.
    ///   - priority: The task priority.
    ///   - operation: The work. Throwing reports an ``EffectFailure``; cancellation does not.
    ///   - file: The file recorded as the source (the caller's `#fileID` by default).
    ///   - function: The function recorded as the source (the caller's by default).
    ///   - line: The line recorded as the source (the caller's by default).
    ///   - column: The column recorded as the source (the caller's by default).
    /// - Returns: The effect.
    public static func run(
        id: EffectID? = nil,
        cancelInFlight: Bool = false,
        priority: TaskPriority? = nil,
        file: String = #fileID,
        function: String = #function,
        line: UInt = #line,
        column: UInt = #column,
        operation: @escaping @Sendable (Send<Action>) async throws -> Void
    ) -> Effect {
        running(id: id, cancelInFlight: cancelInFlight, deduplicate: false, priority: priority,
                source: ActionSource(file: file, function: function, line: line, column: column, origin: .effect),
                operation: operation)
    }

    /// An effect that runs async work unless an effect with the same `id` is already running —
    /// for work that must not be started twice (SwiftRex's token deduplication).
    ///
    /// - Parameters:
    ///   - id: Identifies the work.
    ///   - priority: The task priority.
    ///   - operation: The work.
    ///   - file: The file recorded as the source (the caller's `#fileID` by default).
    ///   - function: The function recorded as the source (the caller's by default).
    ///   - line: The line recorded as the source (the caller's by default).
    ///   - column: The column recorded as the source (the caller's by default).
    /// - Returns: The effect.
    public static func runOnce(
        id: EffectID,
        priority: TaskPriority? = nil,
        file: String = #fileID,
        function: String = #function,
        line: UInt = #line,
        column: UInt = #column,
        operation: @escaping @Sendable (Send<Action>) async throws -> Void
    ) -> Effect {
        running(id: id, cancelInFlight: false, deduplicate: true, priority: priority,
                source: ActionSource(file: file, function: function, line: line, column: column, origin: .effect),
                operation: operation)
    }

    /// The one way `run` and `runOnce` build their effect.
    private static func running(
        id: EffectID?,
        cancelInFlight: Bool,
        deduplicate: Bool,
        priority: TaskPriority?,
        source: ActionSource,
        operation: @escaping @Sendable (Send<Action>) async throws -> Void
    ) -> Effect {
        Effect(.run(Run(
            id: id, cancelInFlight: cancelInFlight, deduplicate: deduplicate,
            priority: priority, source: source, operation: operation
        )))
    }

    /// An effect that cancels every running effect with identifier `id`.
    ///
    /// - Parameter id: The identifier.
    /// - Returns: The effect.
    public static func cancel(id: EffectID) -> Effect {
        Effect(.cancel(id))
    }

    /// Runs several effects at once.
    ///
    /// - Parameter effects: Effects to start together; their actions arrive as each produces them.
    /// - Returns: One effect that runs them all.
    public static func merge(_ effects: Effect...) -> Effect {
        merge(effects)
    }

    /// Runs several effects at once.
    ///
    /// - Parameter effects: Effects to start together; their actions arrive as each produces them.
    /// - Returns: One effect that runs them all.
    public static func merge(_ effects: [Effect]) -> Effect {
        Effect(.merge(effects))
    }

    /// An effect whose actions are wrapped into a larger action type.
    ///
    /// - Parameter transform: Wraps each action.
    /// - Returns: The wrapped effect.
    public func map<Other: Sendable>(_ transform: @escaping @Sendable (Action) -> Other) -> Effect<Other> {
        switch operation {
        case .none:
            return .none
        case let .send(action, source):
            return Effect<Other>(.send(transform(action), source))
        case let .run(run):
            let operation = run.operation
            return Effect<Other>(.run(.init(
                id: run.id,
                cancelInFlight: run.cancelInFlight,
                deduplicate: run.deduplicate,
                priority: run.priority,
                source: run.source,
                operation: { send in try await operation(send.map(transform)) }
            )))
        case let .cancel(id):
            return Effect<Other>(.cancel(id))
        case let .merge(effects):
            return Effect<Other>(.merge(effects.map { $0.map(transform) }))
        }
    }
}
