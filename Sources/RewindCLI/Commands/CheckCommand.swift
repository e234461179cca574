import ArgumentParser
import RewindLog

/// `rewind check PATH`: is the log sound?
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a log: SQLite's integrity check, gapless seqs, a snapshot per session.",
        discussion: "Exits 1 when the log is damaged."
    )

    @OptionGroup var options: LogOptions

    func run() throws {
        let report = try options.open().checkIntegrity()
        if options.json {
            var object: [String: Any] = ["sound": report.isSound, "sqlite": report.sqlite, "events": report.eventCount,
                                         "gaps": report.gaps.map { [$0.lowerBound, $0.upperBound] }, "sessionsWithoutSnapshot": report.sessionsWithoutSnapshot,
                                         "sessionsWithWrongBounds": report.sessionsWithWrongBounds]
            if let seqs = report.seqs { object["firstSeq"] = seqs.lowerBound; object["lastSeq"] = seqs.upperBound }
            print(Rendering.jsonText(object))
        } else {
            print(report)
        }
        if !report.isSound { throw ExitCode(1) }
    }
}
