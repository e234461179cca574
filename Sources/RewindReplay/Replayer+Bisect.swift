public import RewindLog

extension Replayer {
    /// Finds the first action after which `condition` holds — e.g. `{ $0.cart.total < 0 }` —
    /// with its source and the change it made.
    ///
    /// By default it folds every step from each session's start (or from the snapshot at
    /// `from`), checking the condition after each action, so a condition that holds for a
    /// single step is found too. With `skippingAhead`, it first checks the condition on the
    /// session's snapshots and folds only the window before the first snapshot where it holds:
    /// much faster on long logs, but only right for conditions that, once true, stay true until
    /// the next snapshot (a broken invariant that is never repaired).
    ///
    /// - Parameters:
    ///   - session: Only this session (default: all, in order).
    ///   - skippingAhead: Use snapshots to skip to the first window where the condition holds.
    ///   - condition: The condition on the state, e.g. an invariant's negation.
    /// - Returns: The first action, or why there is none.
    public func bisect(
        session: Int64? = nil,
        skippingAhead: Bool = false,
        where condition: (State) -> Bool
    ) throws(EventLogError) -> BisectOutcome<State, Action> {
        var stats = BisectStats()
        let sessions = try sessionsToReplay(session)
        for session in sessions {
            let reader = try reader(for: session)
            let initial = try reader.initialState(State.self)
            stats.snapshotsChecked += 1
            if condition(initial.state) {
                return .holdsAtStart(session: session.id, seq: initial.seq, stats: stats)
            }
            guard let last = session.seqRange?.upperBound else { continue }

            // The window to fold: from the last snapshot where the condition does not hold yet to
            // the first where it does (or the end of the session).
            var windowStart = initial
            var windowEnd = last
            if skippingAhead {
                for entry in try log.snapshotIndex(session: session.id) where entry.seq > initial.seq {
                    let snapshot = try reader.state(State.self, atOrBefore: entry.seq)
                    stats.snapshotsChecked += 1
                    if condition(snapshot.state) {
                        windowEnd = snapshot.seq
                        break
                    }
                    windowStart = snapshot
                }
            }
            guard windowEnd > windowStart.seq else { continue }
            var state = windowStart.state
            var replayStats = ReplayStats()
            var found: (seq: Int64, action: Action, before: State)?
            try forEachAction(reader, from: windowStart.seq + 1, through: windowEnd, stats: &replayStats) { seq, action in
                let before = state
                reducer(&state, action)
                guard condition(state) else { return .continue }
                found = (seq, action, before)
                return .stop
            }
            stats.eventsFolded += replayStats.folded
            // The event is read after the fold: reads cannot nest inside the fold's page read.
            if let (seq, action, before) = found {
                return .found(
                    ActionDiff(event: try log.event(at: seq), action: action, before: before, after: state, diff: Self.difference(before, state)),
                    stats: stats
                )
            }
        }
        return .notFound(stats: stats)
    }
}
