/// A store limited to a part of another store's state and a subset of its actions.
///
/// Made by ``StoreType/scope(state:action:)``. It holds no state of its own: reads project the
/// underlying store's state, dispatches are wrapped and sent to it (with their own source), and
/// observation follows it. Projections scope further the same way.
public struct StoreProjection<State: Sendable, Action: Sendable>: StoreType {
    private let readState: @Sendable () -> State
    private let deliver: @Sendable (Action, ActionSource) -> Void
    private let subscribe: @Sendable (
        Bool, @escaping @Sendable (State) -> Void, (@Sendable () -> Void)?
    ) -> @Sendable () -> Void

    /// Creates a projection from the three operations of a store.
    ///
    /// - Parameters:
    ///   - state: Reads the projected state.
    ///   - dispatch: Sends an action with its source on to the underlying store.
    ///   - subscribe: Subscribes to projected state changes (see `StoreType._subscribe(includingCurrent:deliver:finish:)`).
    public init(
        state: @escaping @Sendable () -> State,
        dispatch: @escaping @Sendable (Action, ActionSource) -> Void,
        subscribe: @escaping @Sendable (
            Bool, @escaping @Sendable (State) -> Void, (@Sendable () -> Void)?
        ) -> @Sendable () -> Void
    ) {
        self.readState = state
        self.deliver = dispatch
        self.subscribe = subscribe
    }

    /// The projected state.
    public var state: State { readState() }

    /// Sends the action on to the underlying store.
    ///
    /// - Parameters:
    ///   - action: The projected action, lifted into the underlying store's.
    ///   - source: Where it came from.
    public func dispatch(_ action: Action, from source: ActionSource) {
        deliver(action, source)
    }

    /// Subscribes to projected state changes.
    public func _subscribe(
        includingCurrent: Bool,
        deliver: @escaping @Sendable (State) -> Void,
        finish: (@Sendable () -> Void)?
    ) -> @Sendable () -> Void {
        subscribe(includingCurrent, deliver, finish)
    }
}
