import ArgumentParser
import RewindLog

/// `rewind bisect PATH --invariant NAME` or `--where EXPR`.
struct BisectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bisect",
        abstract: "Find the first action that breaks an invariant, or after which a condition holds.",
        discussion: """
            --invariant names one of the app's registered invariants (see `apps`); --where takes a \
            condition on the state's JSON, e.g. 'cart.total < 0' or 'cart.lines.count >= 3'. \
            Exits 1 when no action does it.
            """
    )

    @OptionGroup var options: LogOptions
    @OptionGroup var replay: ReplayFlags
    @Option(help: "A registered invariant the state must keep.") var invariant: String?
    @Option(name: .customLong("where"), help: "A condition on the state, e.g. 'cart.total < 0'.") var condition: String?
    @Option(help: "Only this session.") var session: Int64?
    @Flag(help: "Skip ahead by snapshots: faster, for conditions that stay true once true.") var skipAhead = false

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
        let (report, found) = try app.bisect(session: session, skippingAhead: skipAhead, condition: target)
        options.print(report)
        if !found { throw ExitCode(1) }
    }
}
