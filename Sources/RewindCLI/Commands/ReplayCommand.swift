import ArgumentParser
import RewindLog

/// `rewind replay PATH --skip SEQ…`: what if some actions had not happened?
struct ReplayCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay with chosen actions left out, and show how the state would differ."
    )

    @OptionGroup var options: LogOptions
    @OptionGroup var replay: ReplayFlags
    @Option(parsing: .upToNextOption, help: "The seqs to leave out (of one session).") var skip: [Int64] = []
    @Option(help: "Compare the states after this seq (default: the session's last).") var through: Int64?

    func validate() throws {
        guard !skip.isEmpty else { throw ValidationError("give the seqs to leave out with --skip SEQ …") }
        for seq in skip { try InputError.requirePositive(seq, "--skip") }
        try InputError.requirePositive(through, "--through")
    }

    func report() throws -> Report {
        let log = try options.open()
        return try replay.replay(log, sessions: [try log.session(containing: skip.min() ?? 1)]).run(self)
    }
}

extension ReplayCommand: ReplayingCommand {
    /// The state after `through` without the `skipped` actions, and how it differs from the
    /// recorded one (`diff` is absent when it does not).
    struct Report: CommandReport {
        var through: Int64
        var skipped: [EventReport]
        var diff: String?
        /// The alternative state.
        var state: JSONValue

        var text: String {
            """
            without these actions:
            \(skipped.map { "  - " + $0.summary }.joined(separator: "\n"))
            the state after seq \(through) would differ (− as recorded, + without them):
            \(Rendering.diff(diff ?? "(no difference)"))
            """
        }
    }

    func run<State, Action>(with app: TypedAppReplay<State, Action>) throws -> Report {
        let result = try app.replayer.whatIf(skipping: Set(skip), through: through)
        return Report(through: result.through, skipped: try result.skipped.map { try EventReport($0, in: app.replayer.log) }, diff: result.diff, state: try JSONValue(encoding: result.alternative))
    }
}
