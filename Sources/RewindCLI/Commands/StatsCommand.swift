import ArgumentParser
import Foundation
import RewindLog

/// `rewind stats PATH`: what a log holds, in numbers.
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Count events per action case and per source location; time span and size."
    )

    @OptionGroup var options: LogOptions
    @Option(help: "Only this session.") var session: Int64?
    @Option(help: "How many cases and locations to list.") var top = 15

    func validate() throws {
        try InputError.requirePositive(session, "--session", what: "a session number")
        try InputError.requirePositive(top, "--top", what: "a count")
    }

    func run() throws {
        let stats = try options.open().statistics(session: session)
        if options.json {
            var object: [String: Any] = [
                "events": stats.events, "sessions": stats.sessions, "snapshots": stats.snapshots,
                "bytesOnDisk": stats.bytesOnDisk, "payloadBytes": stats.payloadBytes, "snapshotBytes": stats.snapshotBytes,
                "actionCases": Dictionary(uniqueKeysWithValues: stats.actionCases.map { ($0.name, $0.count) }),
                "sources": stats.sources.map { ["location": $0.location, "count": $0.count] as [String: Any] },
            ]
            if let span = stats.timeSpan { object["from"] = Rendering.timestamp(span.lowerBound); object["to"] = Rendering.timestamp(span.upperBound) }
            return print(Rendering.jsonText(object))
        }
        var text = "\(stats.events) events in \(stats.sessions) session\(stats.sessions == 1 ? "" : "s"), \(stats.snapshots) snapshots, "
            + "\(Rendering.bytes(stats.bytesOnDisk)) on disk (payloads \(Rendering.bytes(stats.payloadBytes)), snapshots \(Rendering.bytes(stats.snapshotBytes)))"
        if let span = stats.timeSpan {
            text += "\nfrom \(Rendering.timestamp(span.lowerBound)) to \(Rendering.timestamp(span.upperBound)) (\(Int(span.upperBound - span.lowerBound)) s)"
        }
        text += "\n\nby action case:\n" + Rendering.table(stats.actionCases.prefix(top).map { ["  \($0.count)", $0.name] })
        text += "\n\nby source:\n" + Rendering.table(stats.sources.prefix(top).map { ["  \($0.count)", $0.location] })
        print(text)
    }
}
