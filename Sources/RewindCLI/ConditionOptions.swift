import ArgumentParser
import RewindLog

/// What `bisect` and `shrink` look for: a registered invariant broken, or a condition on the
/// state that holds.
struct ConditionOptions: ParsableArguments {
    @Option(help: "A registered invariant the state must keep (see `apps`).") var invariant: String?
    @Option(name: .customLong("where"), help: "A condition on the state's JSON, e.g. 'cart.total < 0'.") var condition: String?
    @Option(help: "Only this session.") var session: Int64?

    func validate() throws {
        guard (invariant == nil) != (condition == nil) else {
            throw ValidationError("give either --invariant NAME or --where 'CONDITION'")
        }
        if let condition {
            do { _ = try StatePredicate(condition) } catch { throw ValidationError("--where: \(error)") }
        }
        try InputError.requirePositive(session, "--session", what: "a session number")
    }

    /// The condition, parsed.
    func parsedCondition() throws -> Condition {
        if let invariant { return .breaks(invariant: invariant) }
        return .matches(try StatePredicate(condition ?? ""))
    }

    /// The app that replays the chosen sessions of `log`.
    func app(in log: any LogReader, with replay: ReplayFlags) throws -> any AppReplay {
        try replay.replay(log, sessions: try session.map { [try log.session($0)] } ?? log.sessions())
    }
}
