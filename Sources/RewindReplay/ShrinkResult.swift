import Foundation
import Rewind
public import RewindLog

/// A failing log cut down to the fewest actions that still make the condition hold.
public struct ShrinkResult<State: Sendable, Action: Sendable>: Sendable {
    /// The session the actions come from.
    public var session: LogSession
    /// The state the kept actions start from (the session's initial state).
    public var initialState: State
    /// The kept actions, in their original order, with their events (seq, source, time).
    public var steps: [(event: LoggedEvent, action: Action)]
    /// How many actions led up to the first failure before shrinking.
    public var originalCount: Int
    /// How many candidate sequences were replayed.
    public var replays: Int
}
