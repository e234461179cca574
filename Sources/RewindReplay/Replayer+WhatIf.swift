public import RewindLog

extension Replayer {
    /// Replays a session with some actions left out (Redux DevTools' "toggle") and compares
    /// the result with what happened.
    ///
    /// - Parameters:
    ///   - seqs: The events to leave out; all must belong to one session.
    ///   - through: The event after which to compare (default: the session's last).
    ///   - skippingWhatTheyCaused: Whether to leave out, too, every action the skipped ones led
    ///     to — what their middleware dispatched, what their effects sent, and so on down each
    ///     chain — since without its cause it could not have happened: without the tap on *pay*,
    ///     no payment result arrives. On by default; an action whose cause is not known (a log
    ///     from before causes were recorded) is kept.
    /// - Returns: Both states and their difference.
    ///
    /// - Throws: `EventLogError.nothingToSkip(path:)` for an empty set;
    ///   `EventLogError.seqOutsideSession(path:seq:session:sessionSeqs:)` for a skipped seq of
    ///   another session than the first's, or a `through` outside it.
    public func whatIf(
        skipping seqs: Set<Int64>, through: Int64? = nil, skippingWhatTheyCaused: Bool = true
    ) throws(EventLogError) -> WhatIfResult<State> {
        guard let first = seqs.min() else { throw .nothingToSkip(path: log.path) }
        let reader = try reader(for: log.session(containing: first))
        let session = reader.session
        var skipped: [LoggedEvent] = []
        for seq in seqs.sorted() {
            let event = try log.event(at: seq)
            guard event.session == session.id else {
                throw .seqOutsideSession(path: log.path, seq: seq, session: session.id, sessionSeqs: session.seqRange)
            }
            skipped.append(event)
        }
        let end = through ?? session.lastSeq
        guard end >= session.baseSeq, end <= session.lastSeq else {
            throw .seqOutsideSession(path: log.path, seq: end, session: session.id, sessionSeqs: session.seqRange)
        }
        var followers: [LoggedEvent] = []
        if skippingWhatTheyCaused, first < end {
            var descendants = CausalDescendants(of: seqs)
            var cursor = log.events(EventFilter(seqs: (first + 1)...end, session: session.id))
            while let event = try cursor.next() {
                if descendants.admits(event), !seqs.contains(event.seq) { followers.append(event) }
            }
        }
        let left = seqs.union(followers.map(\.seq))
        let actual = try fold(reader, through: end).state
        let start = try reader.state(State.self, atOrBefore: min(first - 1, end))
        var alternative = start.state
        var stats = ReplayStats()
        try forEachAction(reader, from: start.seq + 1, through: end, skipping: left, stats: &stats) { _, action in
            reducer(&alternative, action)
            return .continue
        }
        return WhatIfResult(
            session: session.id, through: end, skipped: skipped, followers: followers, actual: actual, alternative: alternative,
            diff: Self.difference(actual, alternative)
        )
    }
}
