import CustomDump
public import RewindLog

/// What one action changed.
public struct ActionDiff<State: Sendable, Action: Sendable>: Sendable {
    /// The event.
    public var event: LoggedEvent
    /// Its action.
    public var action: Action
    /// The state before it.
    public var before: State
    /// The state after it.
    public var after: State
    /// The difference, `-` before and `+` after, or `nil` when the action changed nothing.
    public var diff: String?
}
