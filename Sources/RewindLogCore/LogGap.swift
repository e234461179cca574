/// Actions a recorder could not write, recorded where they would have been: the session they
/// belonged to ends at ``afterSeq``, and recording went on in ``resumedSession``, which starts
/// from a fresh snapshot of the live state.
///
/// Replay never folds across a gap: each session starts from its own initial snapshot. `rewind
/// check`, `rewind sessions` and `verify` report gaps; `EventLog.gaps(session:)` lists them.
public struct LogGap: Sendable, Equatable, Codable {
    /// The session the loss ended.
    public var session: Int64
    /// The session's last recorded seq before the loss (its base seq when it had none).
    public var afterSeq: Int64
    /// How many dispatched actions are not in the log.
    public var lost: Int
    /// The lost actions' case paths, with how many of each.
    public var cases: [String: Int]
    /// The error that lost them.
    public var reason: String
    /// When the first and the last lost action were dispatched (seconds since 1970).
    public var firstTime: Double
    public var lastTime: Double
    /// The session recording resumed in, or `nil` when it never resumed (the app stopped, or
    /// the log stayed unwritable).
    public var resumedSession: Int64?

    /// Creates a gap record.
    public init(session: Int64, afterSeq: Int64, lost: Int, cases: [String: Int], reason: String, firstTime: Double, lastTime: Double, resumedSession: Int64?) {
        self.session = session
        self.afterSeq = afterSeq
        self.lost = lost
        self.cases = cases
        self.reason = reason
        self.firstTime = firstTime
        self.lastTime = lastTime
        self.resumedSession = resumedSession
    }

    /// `session 1 lost 12 actions after seq 40 (cart.add ×9, cart.remove ×3): disk full; resumed in session 2`.
    public var summary: String {
        let cases = self.cases.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.prefix(4).map { "\($0.key) ×\($0.value)" }
        let more = self.cases.count > 4 ? ", …" : ""
        let resumed = resumedSession.map { "; resumed in session \($0)" } ?? "; not resumed"
        return "session \(session) lost \(lost) action\(lost == 1 ? "" : "s") after seq \(afterSeq) (\(cases.joined(separator: ", "))\(more)): \(reason)\(resumed)"
    }
}
