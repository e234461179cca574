import ArgumentParser
import RewindLog

/// `rewind state PATH --at SEQ`: the state after an event.
struct StateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "state",
        abstract: "Show the state after an event (replayed from the nearest snapshot)."
    )

    @OptionGroup var options: LogOptions
    @OptionGroup var replay: ReplayFlags
    @Option(help: "The seq whose state to show.") var at: Int64

    func validate() throws {
        try InputError.requirePositive(at, "--at")
    }

    func run() throws {
        let log = try options.open()
        let app = try replay.replay(log, sessions: [try log.session(containing: at)])
        options.print(try app.state(at: at))
    }
}
