import ArgumentParser
import Foundation
import RewindInspector
import RewindLog
import RewindReplay

/// Options of the subcommands that replay (and so need the app's types).
struct ReplayFlags: ParsableArguments {
    @Flag(help: "Skip events that no longer decode (and count them) instead of stopping at the first.")
    var skipUndecodable = false

    @Flag(help: "Replay a report whose recorded types differ from this tool's (refused otherwise: another build's reducer replays nonsense).")
    var allowDrift = false

    /// Whether long replays show their progress on a terminal's standard error: off while the
    /// inspector answers a call (`rewind serve` keeps its terminal for its own messages).
    @TaskLocal static var reportsProgress = true
    /// The inspector's job a replay answers, if any: it takes the progress, and stops the
    /// replay once nobody waits for the answer.
    @TaskLocal static var job: InspectorJob?

    /// The app registered for `sessions`, ready to replay `log`.

    func replay(_ log: any LogReader, sessions: [LogSession]) throws -> any AppReplay {
        let ids = Set(sessions.map(\.app.id))
        guard let id = ids.first else {
            throw ValidationError("\(log.path) holds no sessions to replay")
        }
        guard ids.count == 1 else {
            throw ValidationError("\(log.path) holds sessions of several apps (\(ids.sorted().joined(separator: ", "))); choose one with --session")
        }
        guard let app = AppRegistry.app(id: id) else {
            let known = AppRegistry.apps.map(\.id)
            throw ValidationError("""
                \(log.path) was recorded by the app '\(id)', which this tool does not know \
                (it knows: \(known.isEmpty ? "none" : known.joined(separator: ", "))). Replaying needs the app's types and reducer: \
                build a replay tool for it — an executable target whose main.swift is \
                `import RewindCLI; await RewindTool.main(apps: [ReplayableApp(id: "\(id)", reducer: yourReducer)])` \
                (see the RewindCLI article "Building your own replay tool"). sessions, log, show, stats, check and export work without it.
                """)
        }
        var options = ReplayOptions()
        options.skipUndecodable = skipUndecodable
        if let job = Self.job {
            // Often enough for the page's progress, and a prompt stop (cancellation is asked
            // ten times as often), even where each step is costly (a `--where` bisect encodes
            // every state: 1,000 steps take about a second in a debug build); a report is a
            // lock and a store.
            options.progressInterval = 1_000
            options.progress = { progress in job.report("replaying", done: progress.seq, of: progress.target) }
            options.isCancelled = { job.isCancelled }
        } else if Self.reportsProgress && isatty(STDERR_FILENO) != 0 {
            options.progress = { progress in
                FileHandle.standardError.write(Data("\rreplaying: seq \(progress.seq) of \(progress.target)".utf8))
            }
        }
        let replay = app.open(log, options)
        // A report comes from a device running some release; replayed by another release's
        // reducer, it reproduces nothing. A log on the developer's machine only warns (its own
        // build, often with an upcaster on the way).
        if !allowDrift, FieldReport.isReport(at: log.path) {
            let drifts = try replay.schemaDrift(sessions: sessions.map(\.id))
            if !drifts.isEmpty {
                let builds = Set(sessions.map { "\($0.app.id) \($0.app.version.ifEmpty("(no version)"))" }).sorted().joined(separator: ", ")
                throw ValidationError("""
                    \(log.path) was recorded by \(builds), whose types differ from this tool's:
                    \(drifts.map(\.description).joined(separator: "\n"))
                    Replay it with the replay tool built from that release (the RewindUpload article, \
                    "A replay tool per release"), or pass --allow-drift to replay it with this one anyway.
                    """)
            }
        }
        return replay
    }
}
