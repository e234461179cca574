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
}

extension Replayer where State: Equatable {
    /// Replays the whole log (or one session) with today's reducer and compares the state with
    /// every recorded snapshot. A changed reducer, or a non-deterministic one, shows up as the
    /// first snapshot that differs, with the window of events it lies in.
    ///
    /// - Parameter session: Only this session (default: all).
    /// - Returns: What was compared, and the first divergence if any.
    public func verify(session: Int64? = nil) throws(EventLogError) -> VerifyReport<State, Action> {
        var report = VerifyReport<State, Action>()
        let sessions = try sessionsToReplay(session)
        for session in sessions {
            report.sessions += 1
            let reader = try reader(for: session)
            let initial = try reader.initialState(State.self)
            let checkpoints = try log.snapshotIndex(session: session.id).map(\.seq).filter { $0 > initial.seq }
            guard session.seqRange != nil, !checkpoints.isEmpty else { continue }
            var state = initial.state
            var lastAgreeing = initial.seq
            // Fold one window at a time, from snapshot to snapshot, and compare in between:
            // reads of recorded snapshots cannot nest inside a fold's page read.
            for checkpoint in checkpoints {
                var stats = ReplayStats()
                state = try fold(reader, from: (lastAgreeing, state), through: checkpoint, stats: &stats)
                report.eventsFolded += stats.folded
                let recorded = try reader.state(State.self, atOrBefore: checkpoint).state
                report.snapshotsCompared += 1
                if recorded != state {
                    let event = try log.event(at: checkpoint)
                    report.divergence = Divergence(
                        session: session.id, snapshotSeq: checkpoint, lastAgreeingSeq: lastAgreeing, event: event,
                        action: try reader.action(of: event, as: Action.self), recorded: recorded, replayed: state,
                        diff: Self.difference(recorded, state) ?? "(equal by ==, different when dumped)"
                    )
                    return report
                }
                lastAgreeing = checkpoint
            }
            var stats = ReplayStats()
            state = try fold(reader, from: (lastAgreeing, state), through: session.lastSeq, stats: &stats)
            report.eventsFolded += stats.folded
        }
        return report
    }
}
