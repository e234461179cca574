public import RewindLog

/// Where replaying a log first disagreed with what was recorded.
public struct Divergence<State: Sendable, Action: Sendable>: Sendable {
    /// The session.
    public var session: Int64
    /// The snapshot whose recorded state differs from the replayed one.
    public var snapshotSeq: Int64
    /// The previous snapshot, which still agreed: the divergence began after it.
    public var lastAgreeingSeq: Int64
    /// The event at the snapshot (the last action before the comparison).
    public var event: LoggedEvent
    /// Its action.
    public var action: Action
    /// The state the recording holds.
    public var recorded: State
    /// The state today's reducer produces.
    public var replayed: State
    /// The difference, `-` recorded and `+` replayed.
    public var diff: String
}
