import ArgumentParser
import RewindLog

/// `rewind diff PATH --at SEQ` or `--from A --to B`.
struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Show what an action changed (--at), or how two points differ (--from, --to).",
        discussion: "Lines starting with − are the state before, + after."
    )

    @OptionGroup var options: LogOptions
    @OptionGroup var replay: ReplayFlags
    @Option(help: "The action whose change to show.") var at: Int64?
    @Option(help: "The first point (the state after this seq).") var from: Int64?
    @Option(help: "The second point.") var to: Int64?

    func validate() throws {
        switch (at, from, to) {
        case (.some, nil, nil), (nil, .some, .some): break
        default: throw ValidationError("give either --at SEQ, or both --from SEQ and --to SEQ")
        }
        try InputError.requirePositive(at, "--at")
        try InputError.requirePositive(from, "--from")
        try InputError.requirePositive(to, "--to")
    }

    func run() throws {
        let log = try options.open()
        if let at {
            let app = try replay.replay(log, sessions: [try log.session(containing: at)])
            options.print(try app.diff(at: at))
        } else if let from, let to {
            let app = try replay.replay(log, sessions: [try log.session(containing: from), try log.session(containing: to)])
            options.print(try app.diff(from: from, to: to))
        }
    }
}
