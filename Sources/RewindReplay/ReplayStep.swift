public import RewindLog

/// One event replayed: the event as logged, its decoded action, and the state after it.
public struct ReplayStep<State: Sendable, Action: Sendable>: Sendable {
    /// The event.
    public var event: LoggedEvent
    /// The action, decoded.
    public var action: Action
    /// The state after the action.
    public var state: State
}
