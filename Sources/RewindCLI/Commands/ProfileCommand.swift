import ArgumentParser
import Foundation
import RewindLog
import RewindReplay

/// `rewind profile PATH`: what each action's reducer costs, by replay in this build.
struct ProfileCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "profile",
        abstract: "Replay sessions and time each action's reducer: per case count, p50, p99 and total; the slowest actions.",
        discussion: """
            Times are this build's, on this machine: nothing is measured on the device that \
            recorded. Each reducer call is timed on its own, less what reading the clock costs; \
            percentiles are within 0.8 %. Build the tool in release (swift build -c release) for \
            figures that mean something.

            --baseline TOOL compares two builds over the same sessions: it runs TOOL's profile \
            and this tool's alternately, --runs times each, and flags a case only when it is at \
            least --threshold percent slower in every pairing. It exits 1 when a case is: a \
            performance regression test made from recorded sessions.
            """
    )

    @OptionGroup var options: LogOptions
    @OptionGroup var replay: ReplayFlags
    @OptionGroup var range: ReplayedSessions
    @Option(help: ArgumentHelp("How many of the slowest actions to list.", valueName: "n")) var slowest = 10
    @Option(
        help: ArgumentHelp(
            "Another build of this replay tool (a path, or a name on PATH) to compare with, over the same sessions.", valueName: "tool"
        )
    )
    var baseline: String?
    @Option(help: ArgumentHelp("With --baseline: how many runs of each build, alternated (default: 5).", valueName: "n")) var runs: Int?
    @Option(help: ArgumentHelp("With --baseline: the smallest slowdown flagged, in percent (default: 10).", valueName: "percent")) var threshold: Double?

    func validate() throws {
        guard (0...1_000).contains(slowest) else { throw ValidationError("--slowest is 0 to 1,000") }
        if let runs, !(1...100).contains(runs) { throw ValidationError("--runs is 1 to 100") }
        if let threshold, !threshold.isFinite || threshold < 0 { throw ValidationError("--threshold is a percentage of at least 0") }
        if baseline == nil, runs != nil || threshold != nil {
            throw ValidationError("--runs and --threshold compare with a baseline: give --baseline TOOL")
        }
    }

    func report() throws -> ProfileReport {
        let log = try options.open()
        // Compared, the log is read by the two builds; opened here first, a log that cannot be
        // read fails with this tool's own message.
        if let baseline {
            _ = try range.sessions(in: log)
            return .comparison(try compare(with: baseline))
        }
        let chosen = try range.sessions(in: log)
        return try replay.replay(log, sessions: chosen).run(Typed(command: self, sessions: chosen.map(\.id)))
    }

    /// The typed half, with the sessions chosen.
    struct Typed: ReplayingCommand {
        let command: ProfileCommand
        let sessions: [Int64]

        func run<State, Action>(with app: TypedAppReplay<State, Action>) throws -> ProfileReport {
            let profile = try app.replayer.profile(sessions: sessions, from: command.range.from, through: command.range.to, slowest: command.slowest)
            let log = app.replayer.log
            return .single(profile, slowest: try profile.slowest.map { try EventReport(log.event(at: $0.seq), in: log) })
        }
    }

    /// Runs the baseline tool and this one alternately, each as a child with this command's
    /// arguments (less the comparing ones) and `--json`, and compares their profiles.
    private func compare(with tool: String) throws -> ProfileComparisonReport {
        let baselineTool = try ProfilingTool(named: tool, role: "baseline")
        guard let own = Bundle.main.executableURL?.path else { throw InputError("cannot find this tool's own executable to profile it") }
        let arguments = ProfilingTool.arguments(forRunsOf: CommandLine.arguments)
        let ownTool = ProfilingTool(path: own, role: "this build")
        let progress = ProgressLine(json: options.json)
        let runs = runs ?? 5
        var finished = 0
        func timed(_ tool: ProfilingTool) throws -> ReplayProfile {
            progress.update("profiling: run \(finished + 1) of \(runs * 2) (\(tool.role))")
            defer { finished += 1 }
            return try tool.profile(arguments)
        }
        let comparison = try progress.around {
            try ProfileComparison.alternating(
                runs: runs, threshold: (threshold ?? 10) / 100, baseline: { try timed(baselineTool) }, candidate: { try timed(ownTool) }
            )
        }
        return ProfileComparisonReport(baseline: baselineTool.path, comparison: comparison)
    }
}
