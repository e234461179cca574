import ArgumentParser
import RewindLog

/// `rewind verify PATH`: does today's reducer reproduce the recording?
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Replay the log and compare with every recorded snapshot.",
        discussion: "Exits 1 at the first divergence: a changed or non-deterministic reducer."
    )

    @OptionGroup var options: LogOptions
    @OptionGroup var replay: ReplayFlags
    @Option(help: "Only this session.") var session: Int64?

    func validate() throws {
        try InputError.requirePositive(session, "--session", what: "a session number")
    }

    func run() throws {
        let log = try options.open()
        let sessions = try session.map { [try log.session($0)] } ?? log.sessions()
        let app = try replay.replay(log, sessions: sessions)
        let (report, agrees) = try app.verify(session: session)
        options.print(report)
        if !agrees { throw ExitCode(1) }
    }
}
