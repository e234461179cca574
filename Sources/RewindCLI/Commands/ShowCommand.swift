import ArgumentParser
import Foundation
import RewindLog

/// `rewind show PATH SEQ`: one event in full.
struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one event in full: source, time, session and payload."
    )

    @OptionGroup var options: LogOptions
    @Argument(help: "The event's seq.") var seq: Int64

    func run() throws {
        let log = try options.open()
        let event = try log.event(at: seq)
        if options.json { return print(Rendering.jsonText(Rendering.json(event))) }
        let session = try log.session(event.session)
        var lines = [
            "seq       \(event.seq) (session \(event.session), \(session.app.id) \(session.app.version))",
            "time      \(Rendering.timestamp(event.time))",
            "action    \(event.actionCase)",
            "source    \(event.source.file):\(event.source.line):\(event.source.column) \(event.source.function) [\(event.source.origin.rawValue)]",
        ]
        if let info = event.source.info { lines.append("info      \(info)") }
        if let redaction = event.redaction { lines.append("redacted  \(redaction)") }
        if let payload = event.payload {
            let pretty = (try? JSONSerialization.jsonObject(with: payload, options: .fragmentsAllowed)).map(Rendering.jsonText)
            lines.append("payload   " + (pretty ?? "\(payload.count) bytes (\(session.codec))").replacingOccurrences(of: "\n", with: "\n          "))
        } else {
            lines.append("payload   none")
        }
        print(lines.joined(separator: "\n"))
    }
}
