import ArgumentParser
import RewindLog

/// `rewind replay PATH --skip SEQ…`: what if some actions had not happened?
struct ReplayCommand: ParsableCommand {
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

    func run() throws {
        let log = try options.open()
        let app = try replay.replay(log, sessions: [try log.session(containing: skip.min()!)])
        options.print(try app.whatIf(skipping: Set(skip), through: through))
    }
}
