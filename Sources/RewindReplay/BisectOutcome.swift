import RewindLog

/// What ``Replayer/bisect(session:skippingAhead:where:)`` found.
public enum BisectOutcome<State: Sendable, Action: Sendable>: Sendable {
    /// The first action after which the condition holds.
    case found(ActionDiff<State, Action>, stats: BisectStats)
    /// The condition already holds in a session's initial state, before any action.
    case holdsAtStart(session: Int64, seq: Int64, stats: BisectStats)
    /// The condition never holds.
    case notFound(stats: BisectStats)
}
