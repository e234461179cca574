import ArgumentParser
import RewindLog

/// `--session N --from A --to B` on the commands that replay whole sessions and report along
/// the way (`blame`, `profile`): every session by default, each replayed on its own from the
/// snapshot nearest to `--from`.
struct ReplayedSessions: ParsableArguments {
    @Option(help: ArgumentHelp("Only this session (default: every session, each replayed on its own).", valueName: "n")) var session: Int64?
    @Option(help: "From this seq (earlier events of its session are replayed to reach it, not reported).") var from: Int64?
    @Option(help: "Up to this seq.") var to: Int64?

    func validate() throws {
        try InputError.requirePositive(session, "--session", what: "a session number")
        try InputError.requirePositive(from, "--from")
        try InputError.requirePositive(to, "--to")
        try InputError.requireOrdered(from, to, "--from", "--to")
    }

    /// The sessions with events between `--from` and `--to`, in order.
    ///
    /// - Throws: ``InputError`` when none has: the range, the session or the log is empty.
    func sessions(in log: any LogReader) throws -> [LogSession] {
        let sessions = try session.map { [try log.session($0)] } ?? log.sessions()
        let chosen = sessions.filter { found in
            guard let range = found.seqRange else { return false }
            return (from ?? 1) <= range.upperBound && range.lowerBound <= (to ?? .max)
        }
        guard !chosen.isEmpty else {
            throw InputError("\(log.path): no events" + (from != nil || to != nil ? " between --from and --to" : "") + (session.map { " in session \($0)" } ?? ""))
        }
        return chosen
    }
}
