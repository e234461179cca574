import ArgumentParser
import RewindLog

/// `rewind shrink PATH --invariant NAME --output FIXTURE`.
struct ShrinkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shrink",
        abstract: "Cut a failing log down to the fewest actions that still break an invariant.",
        discussion: """
            Delta debugging over the actions from the session's start to the first failure: \
            each candidate is replayed from the initial state, and the result keeps no action \
            that could be removed. The kept actions are written as a small log (a test fixture). \
            Exits 1 when nothing breaks the invariant.
            """
    )

    @OptionGroup var options: LogOptions
    @OptionGroup var replay: ReplayFlags
    @OptionGroup var target: ConditionOptions
    @Option(name: .shortAndLong, help: "The fixture log to write (must not exist).") var output: String

    func run() throws {
        let log = try options.open()
        let (app, condition) = try target.resolve(in: log, with: replay)
        let (report, found) = try app.shrink(session: target.session, condition: condition, output: output)
        options.print(report)
        if !found { throw ExitCode(1) }
    }
}
