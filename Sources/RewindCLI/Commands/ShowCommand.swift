import ArgumentParser
import Foundation
import RewindLog
import RewindReplay

/// `rewind show PATH --at SEQ`: one event in full.
struct ShowCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one event in full: source, time, session and payload."
    )

    @OptionGroup var options: LogOptions
    @Option(help: ArgumentHelp("The event's seq.", valueName: "seq")) var at: Int64?
    // `show PATH SEQ`, the spelling before the vocabulary (hidden; noted when used).
    @Argument(help: .hidden) var oldSeq: Int64?

    /// The event's seq (``validate()`` makes sure there is one).
    var seq: Int64 { at ?? 0 }

    mutating func validate() throws {
        at = Deprecated.merged(at, old: oldSeq, "`show PATH SEQ`", use: "`show PATH --at SEQ`")
        oldSeq = nil
        guard let at else { throw ValidationError("give the event's seq with --at SEQ") }
        try InputError.requirePositive(at, "--at")
    }

    func report() throws -> Report {
        let log = try options.open()
        let event = try Rendering.opened(try log.event(at: seq), in: log)
        let session = try log.session(event.session)
        // A payload is decoded through the app's types when this tool knows the app: a binary
        // one becomes readable, a JSON one shows its dates as dates (the JSON codec stores a
        // `Date` as seconds since 2001). An encrypted one whose key was not given is not, nor
        // one today's types no longer decode: it shows as stored.
        let sealed = event.keyID != nil || event.payload == nil
        let decoded = sealed ? nil : try? AppRegistry.app(id: session.app.id).map { app in
            try app.open(log, ReplayOptions()).run(self)
        }
        return try Report(event: event, in: log, session: session, decoded: decoded)
    }
}

extension ShowCommand: ReplayingCommand {
    /// The event; a payload the app's types decoded is embedded as JSON.
    struct Report: CommandReport {
        var event: EventReport
        private var lines: [String]

        func encode(to encoder: any Encoder) throws {
            try event.encode(to: encoder)
        }

        init(event logged: LoggedEvent, in log: any LogReader, session: LogSession, decoded: (dump: String, json: JSONValue)?) throws {
            event = try EventReport(logged, in: log, payload: decoded?.json)
            lines = [
                "seq       \(logged.seq) (session \(logged.session), \(session.app.id) \(session.app.version))",
                "time      \(event.time)",
                "action    \(logged.actionCase)",
                "source    \(event.file):\(event.line):\(event.column) \(event.function) [\(event.origin)]",
            ]
            if let info = event.info { lines.append("info      \(info)") }
            lines.append("cause     " + Rendering.cause(of: logged))
            if let redaction = event.redaction { lines.append("redacted  \(redaction)") }
            if let payload = logged.payload, let keyID = logged.keyID {
                lines.append("payload   \(Rendering.sealed(payload)) (session \(logged.session) is encrypted with key '\(keyID)'; pass --key-file to read it)")
            } else if let payload = logged.payload {
                let pretty = decoded?.dump ?? JSONValue(json: payload).flatMap { try? JSONOutput.pretty($0) }
                let text = pretty ?? "\(payload.count) bytes (\(session.codec); this tool does not know the app '\(session.app.id)' to decode it)"
                lines.append("payload   " + text.replacingOccurrences(of: "\n", with: "\n          "))
            } else {
                lines.append("payload   none")
            }
        }

        var text: String { lines.joined(separator: "\n") }
    }

    /// The event's action, decoded with the app's types: as swift-custom-dump shows it, and as
    /// JSON.
    func run<State, Action>(with app: TypedAppReplay<State, Action>) throws -> (dump: String, json: JSONValue) {
        let action = try app.replayer.decode(try app.replayer.log.event(at: seq))
        return (app.dump(action), try JSONValue(encoding: action))
    }
}
