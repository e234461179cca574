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
    @OptionGroup var target: ConditionOptions
    @Flag(help: "Skip ahead by snapshots: faster, for conditions that stay true once true.") var skipAhead = false

    func run() throws {
        let log = try options.open()
        let (app, condition) = try target.resolve(in: log, with: replay)
        let (report, found) = try app.bisect(session: target.session, skippingAhead: skipAhead, condition: condition)
        options.print(report)
        if !found { throw ExitCode(1) }
    }
}
