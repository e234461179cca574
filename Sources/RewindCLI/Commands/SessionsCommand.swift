import ArgumentParser
import Foundation
import RewindLog

/// `rewind sessions PATH`: the recording sessions in a log.
struct SessionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessions",
        abstract: "List the recording sessions in a log."
    )

    @OptionGroup var options: LogOptions

    func run() throws {
        let sessions = try options.open().sessions()
        if options.json {
            print(Rendering.jsonText(sessions.map { session -> [String: Any] in
                var object: [String: Any] = [
                    "id": session.id, "app": session.app.id, "appVersion": session.app.version,
                    "actionSchemaVersion": session.app.actionSchemaVersion, "stateSchemaVersion": session.app.stateSchemaVersion,
                    "codec": session.codec, "startedAt": Rendering.timestamp(session.startedAt), "baseSeq": session.baseSeq,
                    "events": session.eventCount,
                ]
                if let range = session.seqRange { object["firstSeq"] = range.lowerBound; object["lastSeq"] = range.upperBound }
                if let info = session.info { object["info"] = info }
                return object
            }))
            return
        }
        guard !sessions.isEmpty else { return print("no sessions") }
        var rows = [["session", "app", "version", "schemas (action/state)", "codec", "started", "events", "seqs"]]
        for session in sessions {
            rows.append([
                "\(session.id)", session.app.id, session.app.version,
                "\(session.app.actionSchemaVersion)/\(session.app.stateSchemaVersion)", session.codec,
                Rendering.timestamp(session.startedAt), "\(session.eventCount)",
                session.seqRange.map { "\($0.lowerBound)…\($0.upperBound)" } ?? "—",
            ])
        }
        print(Rendering.table(rows))
    }
}
