public import RewindLog

/// How the state would differ had some actions not happened.
public struct WhatIfResult<State: Sendable>: Sendable {
    /// The session.
    public var session: Int64
    /// The state compared is the one after this seq.
    public var through: Int64
    /// The events left out, as asked.
    public var skipped: [LoggedEvent]
    /// The events left out because the skipped ones led to them — what their middleware
    /// dispatched and their effects sent, and so on — in seq order; empty when what they caused
    /// was kept (`skippingWhatTheyCaused: false`).
    public var followers: [LoggedEvent] = []
    /// The state as recorded.
    public var actual: State
    /// The state without the skipped actions.
    public var alternative: State
    /// The difference, `-` actual and `+` without the skipped actions; `nil` when equal.
    public var diff: String?
}
