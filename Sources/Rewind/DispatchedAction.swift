/// An action together with the ``ActionSource`` it was dispatched from.
///
/// This is what travels along the store's timeline and what middleware sees, so a recorder can
/// store the action and where it came from in one piece.
public struct DispatchedAction<Action: Sendable>: Sendable {
    /// The action.
    public var action: Action
    /// Where it was dispatched from.
    public var source: ActionSource

    /// Pairs an action with its source.
    ///
    /// - Parameters:
    ///   - action: The action as dispatched.
    ///   - source: Where it was dispatched from.
    @inlinable
    public init(_ action: Action, from source: ActionSource) {
        self.action = action
        self.source = source
    }
}

extension DispatchedAction: Equatable where Action: Equatable {}
extension DispatchedAction: Hashable where Action: Hashable {}
extension DispatchedAction: Codable where Action: Codable {}
