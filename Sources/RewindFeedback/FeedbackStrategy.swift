/// What a feedback does with its running work when a newer state arrives.
///
/// Spin's two execution strategies. They apply to feedbacks that start async work per state
/// (the `effect:` feedbacks); a reaction decides at once and a `states:` feedback runs for the
/// loop's whole life, so neither has work to cancel.
public enum FeedbackStrategy: Sendable, Hashable {
    /// Cancel the work started for the previous state, then start work for the new one. The
    /// default: the previous work answered a question the loop no longer asks. A new state the
    /// feedback's filter rejects cancels the running work too.
    case cancelOnNewState
    /// Let the work started for earlier states run to its end, next to the new work.
    case continueOnNewState
}
