import RewindLog

/// How the state would differ had some actions not happened.
public struct WhatIfResult<State: Sendable>: Sendable {
    /// The session.
    public var session: Int64
    /// The state compared is the one after this seq.
    public var through: Int64
    /// The events left out.
    public var skipped: [LoggedEvent]
    /// The state as recorded.
    public var actual: State
    /// The state without the skipped actions.
    public var alternative: State
    /// The difference, `-` actual and `+` without the skipped actions; `nil` when equal.
    public var diff: String?
}

extension Replayer {
    /// Replays a session with some actions left out (Redux DevTools' "toggle") and compares
    /// the result with what happened.
    ///
    /// - Parameters:
    ///   - seqs: The events to leave out; all must belong to one session.
    ///   - through: The event after which to compare (default: the session's last).
    /// - Returns: Both states and their difference.
    public func whatIf(skipping seqs: Set<Int64>, through: Int64? = nil) throws(EventLogError) -> WhatIfResult<State> {
        guard let first = seqs.min() else {
            throw .seqNotFound(path: log.path, seq: 0, available: try log.seqRange())
        }
        let session = try log.uncountedSession(containing: first)
        var skipped: [LoggedEvent] = []
        for seq in seqs.sorted() {
            let event = try log.event(at: seq)
            guard event.session == session.id else {
                throw .decodingFailed(path: log.path, seq: seq, actionCase: event.actionCase, codingPath: "",
                                      reason: "it belongs to session \(event.session), not \(session.id): skip events of one session at a time")
            }
            skipped.append(event)
        }
        let end = through ?? session.seqRange?.upperBound ?? first
        let actual = try fold(session: session, through: end).state
        let start = try startingPoint(session: session, atOrBefore: first - 1)
        var alternative = start.state
        var stats = ReplayStats()
        if end > start.seq {
            try forEachAction(session: session, in: (start.seq + 1)...end, skipping: seqs, stats: &stats) { _, action in
                reducer(&alternative, action)
            }
        }
        return WhatIfResult(
            session: session.id, through: end, skipped: skipped, actual: actual, alternative: alternative,
            diff: Self.difference(actual, alternative)
        )
    }
}
