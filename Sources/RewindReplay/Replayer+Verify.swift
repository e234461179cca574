import RewindLog

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
            let initial = try startingPoint(session: session, atOrBefore: session.baseSeq)
            let checkpoints = try log.snapshotIndex(session: session.id).map(\.seq).filter { $0 > initial.seq }
            guard let last = session.seqRange?.upperBound, !checkpoints.isEmpty else { continue }
            var state = initial.state
            var lastAgreeing = initial.seq
            var next = checkpoints.makeIterator()
            var checkpoint = next.next()
            var stats = ReplayStats()
            var divergence: Divergence<State, Action>?
            do {
                try forEachAction(session: session, in: (initial.seq + 1)...last, stats: &stats) { event, action throws(EventLogError) in
                    reducer(&state, action)
                    while let seq = checkpoint, seq <= event.seq {
                        if seq == event.seq {
                            let recorded = try startingPoint(session: session, atOrBefore: seq).state
                            report.snapshotsCompared += 1
                            if recorded != state {
                                divergence = Divergence(
                                    session: session.id, snapshotSeq: seq, lastAgreeingSeq: lastAgreeing, event: event,
                                    action: action, recorded: recorded, replayed: state,
                                    diff: Self.difference(recorded, state) ?? "(equal by ==, different when dumped)"
                                )
                                throw StopFolding.stop
                            }
                            lastAgreeing = seq
                        }
                        checkpoint = next.next()
                    }
                }
            } catch let error where error == StopFolding.stop {}
            report.eventsFolded += stats.folded
            if let divergence {
                report.divergence = divergence
                return report
            }
        }
        return report
    }
}
