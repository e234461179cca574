import ArgumentParser
import Foundation
import RewindLog
import RewindReplay

/// `rewind show PATH SEQ`: one event in full.
struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one event in full: source, time, session and payload."
    )

    @OptionGroup var options: LogOptions
    @Argument(help: "The event's seq.") var seq: Int64

    func validate() throws {
        try InputError.requirePositive(seq, "seq")
    }

    func run() throws {
        let log = try options.open()
        let event = try log.event(at: seq)
        let session = try log.session(event.session)
        // A payload that is not JSON text (a binary codec) is decoded through the app's types
        // when this tool knows the app.
        let isJSON = event.payload.map { (try? JSONSerialization.jsonObject(with: $0, options: .fragmentsAllowed)) != nil } ?? true
        let decoded = isJSON ? nil : try? AppRegistry.app(id: session.app.id).map { app in
            try app.open(log, ReplayOptions()).action(at: seq)
        }
        if options.json {
            var object = Rendering.json(event)
            if let decoded { object["payload"] = decoded.json }
            return print(Rendering.jsonText(object))
        }
        var lines = [
            "seq       \(event.seq) (session \(event.session), \(session.app.id) \(session.app.version))",
            "time      \(Rendering.timestamp(event.time))",
            "action    \(event.actionCase)",
            "source    \(event.source.file):\(event.source.line):\(event.source.column) \(event.source.function) [\(event.source.origin.rawValue)]",
        ]
        if let info = event.source.info { lines.append("info      \(info)") }
        if let redaction = event.redaction { lines.append("redacted  \(redaction)") }
        if let payload = event.payload {
            let pretty = decoded?.dump ?? (try? JSONSerialization.jsonObject(with: payload, options: .fragmentsAllowed)).map(Rendering.jsonText)
            let text = pretty ?? "\(payload.count) bytes (\(session.codec); this tool does not know the app '\(session.app.id)' to decode it)"
            lines.append("payload   " + text.replacingOccurrences(of: "\n", with: "\n          "))
        } else {
            lines.append("payload   none")
        }
        print(lines.joined(separator: "\n"))
    }
}
