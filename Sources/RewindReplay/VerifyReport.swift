public import RewindLog

/// What ``Replayer/verify(session:)`` found.
public struct VerifyReport<State: Sendable, Action: Sendable>: Sendable {
    /// Sessions replayed.
    public var sessions = 0
    /// Snapshots compared.
    public var snapshotsCompared = 0
    /// Events folded.
    public var eventsFolded = 0
    /// The first divergence, or `nil` when the replay reproduced every snapshot.
    public var divergence: Divergence<State, Action>?
    /// The state fields scrubbed (by the replayer's ``Replayer/redaction``) from both sides
    /// before comparing: what the comparison could not see.
    public var scrubbedFields: [String] = []
    /// Losses recorded in the sessions replayed. Each ended its session, so the replay never
    /// folded across one; they are listed so a reader knows the recording is not whole.
    public var gaps: [LogGap] = []
}
