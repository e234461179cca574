import ArgumentParser
import RewindLog

/// `rewind replay PATH --without SEQ…`: what if some actions had not happened?
struct ReplayCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay with chosen actions left out, and show how the state would differ."
    )

    @OptionGroup var options: LogOptions
    @OptionGroup var replay: ReplayFlags
    @Option(parsing: .upToNextOption, help: ArgumentHelp("The seqs to leave out (of one session).", valueName: "seq")) var without: [Int64] = []
    @Option(help: ArgumentHelp("Compare the states after this seq (default: the session's last).", valueName: "seq")) var at: Int64?
    @Flag(help: "Keep what the left-out actions led to (their middleware's dispatches, their effects' results); by default those go too.")
    var keepCaused = false
    @OptionGroup var scope: SessionScope
    // The spellings before the vocabulary (hidden; noted when used).
    @Option(name: .customLong("skip"), parsing: .upToNextOption, help: .hidden) var oldSkip: [Int64] = []
    @Option(name: .customLong("through"), help: .hidden) var oldThrough: Int64?

    mutating func validate() throws {
        if !oldSkip.isEmpty {
            Deprecated.note("--skip", use: "--without")
            without += oldSkip
            oldSkip = []
        }
        at = Deprecated.merged(at, old: oldThrough, "--through", use: "--at")
        oldThrough = nil
        guard !without.isEmpty else { throw ValidationError("give the seqs to leave out with --without SEQ …") }
        for seq in without { try InputError.requirePositive(seq, "--without") }
        try InputError.requirePositive(at, "--at")
    }

    func report() throws -> Report {
        let log = try options.open()
        try scope.check(without + [at].compactMap { $0 }, in: log)
        return try replay.replay(log, sessions: [try log.session(containing: without.min() ?? 1)]).run(self)
    }
}

extension ReplayCommand: ReplayingCommand {
    /// The state after `at` without the actions `without`, and how it differs from the
    /// recorded one (`diff` is absent when it does not). The keys are the options' names;
    /// `through` and `skipped`, their names before, are written too for one release.
    struct Report: CommandReport {
        var at: Int64
        var without: [EventReport]
        /// What the left-out actions led to, left out with them (unless `--keep-caused`).
        var followers: [EventReport]
        var diff: String?
        /// The alternative state.
        var state: JSONValue

        private enum CodingKeys: String, CodingKey {
            case at, without, followers, diff, state
            case through, skipped  // deprecated spellings of `at` and `without`
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(at, forKey: .at)
            try container.encode(without, forKey: .without)
            try container.encode(followers, forKey: .followers)
            try container.encodeIfPresent(diff, forKey: .diff)
            try container.encode(state, forKey: .state)
            try container.encode(at, forKey: .through)
            try container.encode(without, forKey: .skipped)
        }

        var text: String {
            """
            without these actions:
            \(without.map { "  - " + $0.summary }.joined(separator: "\n"))\(followers.isEmpty ? "" : "\nand what they led to:\n" + followers.map { "  - " + $0.summary }.joined(separator: "\n"))
            the state after seq \(at) would differ (− as recorded, + without them):
            \(Rendering.diff(diff ?? "(no difference)"))
            """
        }
    }

    func run<State, Action>(with app: TypedAppReplay<State, Action>) throws -> Report {
        let result = try app.replayer.whatIf(skipping: Set(without), through: at, skippingWhatTheyCaused: !keepCaused)
        let log = app.replayer.log
        return Report(
            at: result.through, without: try result.skipped.map { try EventReport($0, in: log) },
            followers: try result.followers.map { try EventReport($0, in: log) }, diff: result.diff, state: try JSONValue(encoding: result.alternative)
        )
    }
}
