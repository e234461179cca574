public import RewindLog

extension Replayer where State: Equatable {
    /// Replays the whole log (or one session) with today's reducer and compares the state with
    /// every recorded snapshot. A changed reducer, or a non-deterministic one, shows up as the
    /// first snapshot that differs, with the window of events it lies in.
    ///
    /// Snapshots recorded under a `Redaction` hold scrubbed states, so the replayed and the
    /// recorded state are both scrubbed by ``redaction`` before they are compared; the report
    /// names the scrubbed fields.
    ///
    /// - Parameter session: Only this session (default: all).
    /// - Returns: What was compared, and the first divergence if any.
    public func verify(session: Int64? = nil) throws(EventLogError) -> VerifyReport<State, Action> {
        var report = VerifyReport<State, Action>()
        report.scrubbedFields = redaction.scrubbedFields
        let sessions = try sessionsToReplay(session)
        let replayed = Set(sessions.map(\.id))
        report.gaps = try log.gaps().filter { replayed.contains($0.session) }
        // Progress counts toward the walk's end, not the stretch being folded.
        let end = sessions.compactMap(\.seqRange?.upperBound).max()
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
                state = try fold(reader, from: (lastAgreeing, state), through: checkpoint, reportingTo: end, stats: &stats)
                report.eventsFolded += stats.folded
                // Both sides scrubbed: a scrub is idempotent, and a log recorded before the
                // policy existed then compares as one recorded under it.
                let recorded = redaction.scrubbed(try reader.state(State.self, atOrBefore: checkpoint).state)
                report.snapshotsCompared += 1
                let replayed = redaction.scrubbed(state)
                if recorded != replayed {
                    let event = try log.event(at: checkpoint)
                    report.divergence = Divergence(
                        session: session.id, snapshotSeq: checkpoint, lastAgreeingSeq: lastAgreeing, event: event,
                        action: try reader.action(of: event, as: Action.self), recorded: recorded, replayed: replayed,
                        diff: Self.difference(recorded, replayed) ?? "(equal by ==, different when dumped)"
                    )
                    return report
                }
                lastAgreeing = checkpoint
            }
            var stats = ReplayStats()
            state = try fold(reader, from: (lastAgreeing, state), through: session.lastSeq, reportingTo: end, stats: &stats)
            report.eventsFolded += stats.folded
        }
        return report
    }
}
