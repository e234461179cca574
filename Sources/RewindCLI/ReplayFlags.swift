import ArgumentParser
import Foundation
import RewindInspector
import RewindLog
import RewindReplay

/// Options of the subcommands that replay (and so need the app's types).
struct ReplayFlags: ParsableArguments {
    @Flag(help: "Skip events that no longer decode (and count them) instead of stopping at the first.")
    var skipUndecodable = false

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
            // Often enough for the page's progress and a prompt stop even where each step is
            // costly (a `--where` bisect encodes every state: 1,000 steps take about a second
            // in a debug build); a report is a lock and a store.
            options.progressInterval = 1_000
            options.progress = { progress in job.report("replaying", done: progress.seq, of: progress.target) }
            options.isCancelled = { job.isCancelled }
        } else if Self.reportsProgress && isatty(STDERR_FILENO) != 0 {
            options.progress = { progress in
                FileHandle.standardError.write(Data("\rreplaying: seq \(progress.seq) of \(progress.target)".utf8))
            }
        }
        return app.open(log, options)
    }
}
