import ArgumentParser
import RewindLog

/// `rewind state PATH --at SEQ`: the state after an event.
struct StateCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "state",
        abstract: "Show the state after an event (replayed from the nearest snapshot)."
    )

    @OptionGroup var options: LogOptions
    @OptionGroup var replay: ReplayFlags
    @Option(help: "The seq whose state to show.") var at: Int64?
    @OptionGroup var scope: SessionScope

    func validate() throws {
        try InputError.requirePositive(at, "--at")
        guard at != nil || scope.session != nil else { throw ValidationError("give --at SEQ, or --session N for its last event") }
    }

    func report() throws -> Report {
        let log = try options.open()
        var command = self
        command.at = try scope.point(at, in: log)
        return try replay.replay(log, sessions: [try log.session(containing: command.at ?? 0)]).run(command)
    }
}

extension StateCommand: ReplayingCommand {
    /// The state after an event, and how it was reached.
    struct Report: CommandReport {
        var seq: Int64
        var session: Int64
        var state: JSONValue
        /// The app's text for whole numbers it says how to show (``ValueFormat``), by dotted
        /// path (`cart.total`); absent when it says nothing.
        var formatted: [String: String]?
        /// Events folded from the snapshot to `seq`.
        var eventsFolded: Int
        /// The seq of the snapshot the fold started from (0: the session's initial state).
        var fromSnapshot: Int64
        /// Events left out because they no longer decode (with `--skip-undecodable`).
        var skipped: [SkippedEvent]
        var dump: String

        struct SkippedEvent: Encodable {
            var seq: Int64
            var action: String
            var reason: String
        }

        var text: String {
            var text = "state after seq \(seq) (session \(session), replayed \(eventsFolded) events from the snapshot at seq \(fromSnapshot)):\n" + dump
            if !skipped.isEmpty {
                text += "\n(skipped \(skipped.count) events that no longer decode: "
                    + skipped.prefix(5).map { "seq \($0.seq) \($0.action)" }.joined(separator: ", ") + (skipped.count > 5 ? ", …)" : ")")
            }
            return text
        }

        private enum CodingKeys: String, CodingKey {
            case seq, session, state, formatted, eventsFolded, fromSnapshot, skipped
        }
    }

    func run<State, Action>(with app: TypedAppReplay<State, Action>) throws -> Report {
        let seq = at ?? 0
        let (state, stats) = try app.replayer.stateAndStats(at: seq)
        let json = try JSONValue(encoding: state)
        let formatted = app.formats.texts(in: json)
        return Report(
            seq: seq, session: try app.replayer.log.session(containing: seq).id, state: json, formatted: formatted.isEmpty ? nil : formatted,
            eventsFolded: stats.folded, fromSnapshot: stats.startedFromSnapshot ?? 0,
            skipped: stats.skipped.map { .init(seq: $0.seq, action: $0.actionCase, reason: $0.reason) },
            // The dump is the text report; JSON (and the inspector) never shows it, and for a
            // large state it costs more than the replay.
            dump: options.json ? "" : app.dump(state)
        )
    }
}
