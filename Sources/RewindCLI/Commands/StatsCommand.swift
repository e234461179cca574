import ArgumentParser
import RewindLog

/// `rewind stats PATH`: what a log holds, in numbers.
struct StatsCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Count events per action case and per source location; time span and size.",
        discussion: """
            With --from/--to or --since/--until, only the events in that range or window are \
            counted (and the sessions and snapshots they hold); the size on disk stays the file's.
            """
    )

    @OptionGroup var options: LogOptions
    @OptionGroup var selection: EventSelection
    @Option(help: "How many cases and locations to list.") var top = 15
    @Option(help: "Also show activity over time: the time span cut into this many stretches (1–1000), a sparkline per case and per source.")
    var buckets: Int?

    func validate() throws {
        try InputError.requirePositive(top, "--top", what: "a count")
        if let buckets, !(1...1_000).contains(buckets) { throw InputError("--buckets \(buckets): give 1 to 1000 stretches") }
    }

    func report() throws -> Report {
        let log = try options.open()
        // The selection as `log` reads it: relative times count back from the last event.
        let filter = try selection.filter(in: log)
        var report = Report(try log.statistics(session: filter.session, seqs: filter.seqs, times: filter.times), top: top)
        if let buckets {
            report.activity = try log.activity(session: filter.session, seqs: filter.seqs, times: filter.times, buckets: buckets, top: min(top, 100))
        }
        return report
    }
}

extension StatsCommand {
    /// What a log (or one session) holds. `actionCases` maps each case to its count; `sources`
    /// lists locations, most frequent first.
    struct Report: CommandReport {
        var events: Int
        var sessions: Int
        var snapshots: Int
        var bytesOnDisk: Int
        var payloadBytes: Int
        var snapshotBytes: Int
        var actionCases: [String: Int]
        var sources: [Source]
        /// The first and last event times (ISO-8601, UTC); absent without events.
        var from: String?
        var to: String?
        /// With `--buckets`: events per stretch of time, per case and per source.
        var activity: LogActivity?
        private var stats: LogStatistics
        private var top: Int

        struct Source: Encodable {
            var location: String
            var count: Int
        }

        private enum CodingKeys: String, CodingKey {
            case events, sessions, snapshots, bytesOnDisk, payloadBytes, snapshotBytes, actionCases, sources, from, to, activity
        }

        init(_ stats: LogStatistics, top: Int) {
            (self.stats, self.top) = (stats, top)
            (events, sessions, snapshots) = (stats.events, stats.sessions, stats.snapshots)
            (bytesOnDisk, payloadBytes, snapshotBytes) = (stats.bytesOnDisk, stats.payloadBytes, stats.snapshotBytes)
            actionCases = Dictionary(stats.actionCases.map { ($0.name, $0.count) }, uniquingKeysWith: +)
            sources = stats.sources.map { Source(location: $0.location, count: $0.count) }
            (from, to) = (stats.timeSpan.map { Rendering.timestamp($0.lowerBound) }, stats.timeSpan.map { Rendering.timestamp($0.upperBound) })
        }

        /// Counts as block characters, each scaled to the largest.
        static func sparkline(_ counts: [Int]) -> String {
            let blocks = Array(" ▁▂▃▄▅▆▇█"), peak = max(counts.max() ?? 0, 1)
            return String(counts.map { count in blocks[count == 0 ? 0 : max(1, Int((Double(count) / Double(peak) * 8).rounded()))] })
        }

        var text: String {
            var text = "\(events) events in \(sessions) session\(sessions == 1 ? "" : "s"), \(snapshots) snapshots, "
                + "\(Rendering.bytes(bytesOnDisk)) on disk (payloads \(Rendering.bytes(payloadBytes)), snapshots \(Rendering.bytes(snapshotBytes)))"
            if let span = stats.timeSpan, let from, let to {
                // A tampered log's times can be far apart: Int(_:) of a span beyond Int's range traps.
                let seconds = span.upperBound - span.lowerBound
                text += "\nfrom \(from) to \(to) (\(seconds < 1e15 ? "\(Int(seconds))" : "\(seconds)") s)"
            }
            text += "\n\nby action case:\n" + Rendering.table(stats.actionCases.prefix(top).map { ["  \($0.count)", $0.name] })
            text += "\n\nby source:\n" + Rendering.table(stats.sources.prefix(top).map { ["  \($0.count)", $0.location] })
            if let activity {
                let stretch = activity.bucketSeconds < 1e15 ? String(format: "%.3g", activity.bucketSeconds) : "\(activity.bucketSeconds)"
                text += "\n\nover time (\(activity.total.count) stretches of \(stretch) s):\n"
                let cases = activity.cases.map { ["  " + ($0.name == "other" ? "(other cases)" : $0.name), Self.sparkline($0.counts)] }
                let sources = activity.sources.map { ["  " + ($0.name == "other" ? "(other sources)" : $0.name), Self.sparkline($0.counts)] }
                text += Rendering.table([["  all", Self.sparkline(activity.total)]] + cases + sources)
            }
            return text
        }
    }
}
