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
    @Option(help: "A registered invariant the state must keep.") var invariant: String?
    @Option(name: .customLong("where"), help: "A condition on the state, e.g. 'cart.total < 0'.") var condition: String?
    @Option(help: "Only this session.") var session: Int64?
    @Option(name: .shortAndLong, help: "The fixture log to write (must not exist).") var output: String

    func validate() throws {
        guard (invariant == nil) != (condition == nil) else {
            throw ValidationError("give either --invariant NAME or --where 'CONDITION'")
        }
        if let condition {
            do { _ = try StatePredicate(condition) } catch { throw ValidationError("--where: \(error)") }
        }
    }

    func run() throws {
        let log = try options.open()
        let sessions = try session.map { [try log.session($0)] } ?? log.sessions()
        let app = try replay.replay(log, sessions: sessions)
        let target: Condition = try invariant.map { .breaks(invariant: $0) } ?? .matches(StatePredicate(condition!))
        let (report, found) = try app.shrink(session: session, condition: target, output: output)
        options.print(report)
        if !found { throw ExitCode(1) }
    }
}
