/// Feeds actions from a running effect back into the store.
///
/// Each call captures its own call site, so the recorded source of a fed-back action points at
/// the line inside the effect that sent it, marked with origin ``ActionSource/Origin/effect``.
///
/// ```swift
/// let load = Effect<ShopAction>.run { send in
///     let (products, discounts) = try await api.fetchCatalogue()
///     send(.catalogue(.loaded(products: products, discounts: discounts)))
/// }
/// ```
public struct Send<Action: Sendable>: Sendable {
    private let deliver: @Sendable (Action, ActionSource) -> Void

    /// Creates a sender from a function that dispatches an action with its source.
    ///
    /// - Parameter deliver: Receives each action and the source it was sent from.
    public init(_ deliver: @escaping @Sendable (Action, ActionSource) -> Void) {
        self.deliver = deliver
    }

    /// Sends an action back to the store.
    ///
    /// - Parameters:
    ///   - action: The action to dispatch back into the store.
    ///   - info: An optional note for the source.
    ///   - file: The file recorded as the source (the caller's `#fileID` by default).
    ///   - function: The function recorded as the source (the caller's by default).
    ///   - line: The line recorded as the source (the caller's by default).
    ///   - column: The column recorded as the source (the caller's by default).
    public func callAsFunction(
        _ action: Action,
        info: String? = nil,
        file: String = #fileID,
        function: String = #function,
        line: UInt = #line,
        column: UInt = #column
    ) {
        deliver(
            action,
            ActionSource(file: file, function: function, line: line, column: column, info: info, origin: .effect)
        )
    }

    /// Sends an action with an explicit source, kept as it is.
    ///
    /// - Parameters:
    ///   - action: The action to dispatch back into the store.
    ///   - source: Its source.
    public func callAsFunction(_ action: Action, from source: ActionSource) {
        deliver(action, source)
    }

    /// A sender of smaller actions that wraps each one before passing it on.
    ///
    /// - Parameter transform: Wraps a smaller action into this sender's action.
    /// - Returns: The wrapping sender.
    public func map<Local: Sendable>(_ transform: @escaping @Sendable (Local) -> Action) -> Send<Local> {
        let deliver = self.deliver
        return Send<Local> { action, source in deliver(transform(action), source) }
    }
}
