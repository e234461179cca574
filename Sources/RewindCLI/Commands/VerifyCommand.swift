import ArgumentParser
import RewindLog
import RewindReplay

/// `rewind verify PATH`: does today's reducer reproduce the recording?
struct VerifyCommand: ReportingCommand, AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Replay the log and compare with every recorded snapshot.",
        discussion: """
            Exits 1 at the first divergence: a changed or non-deterministic reducer. With --all-sessions, every \
            session is replayed on its own, in parallel — of the log file, or of a PostgreSQL store given by its \
            postgres:// URL — and the report lists each session that diverges, with where.
            """
    )

    @OptionGroup var options: LogOptions
    @OptionGroup var replay: ReplayFlags
    @Option(help: "Only this session.") var session: Int64?
    @OptionGroup var fleet: FleetOptions

    /// A fleet question asks the store itself, a session at a time.
    var readsOneLog: Bool { !fleet.allSessions }

    func validate() throws {
        try InputError.requirePositive(session, "--session", what: "a session number")
        try fleet.validate(session: session)
    }

    mutating func run() async throws {
        if fleet.allSessions {
            try await runFleet()
        } else {
            try printReport()
        }
    }

    func report() throws -> Report {
        let log = try options.open()
        let sessions = try session.map { [try log.session($0)] } ?? log.sessions()
        return try replay.replay(log, sessions: sessions).run(self)
    }
}

extension VerifyCommand: FleetCommand {
    var fleetQuestion: String { "sessions whose replay diverges from the recording" }

    static var hitsAnswerNo: Bool { true }

    func answer(in log: any LogReader, session: Int64) throws -> FleetEntry.Answer {
        var command = self
        command.session = session
        let report = try replay.replay(log, sessions: [try log.session(session)]).run(command)
        return FleetEntry.Answer(status: report.agrees ? .agrees : .diverged, seq: report.seq, event: report.event, eventsFolded: report.eventsFolded)
    }
}

extension VerifyCommand: ReplayingCommand {
    /// Whether replaying reproduces every recorded snapshot; at the first divergence, where
    /// (`seq`, `lastAgreeingSeq`), the last action (`event`) and the difference (`diff`).
    struct Report: CommandReport {
        var agrees: Bool
        var answersNo: Bool { !agrees }
        var sessions: Int
        var eventsFolded: Int
        var snapshotsCompared: Int
        var session: Int64?
        /// The seq of the snapshot that differs.
        var seq: Int64?
        var lastAgreeingSeq: Int64?
        var event: EventReport?
        var diff: String?
        /// Losses recorded in the sessions replayed; replay never folds across them.
        var gaps: [LogGap]
        /// State fields the app's redaction scrubs: compared only as scrubbed.
        var scrubbedFields: [String]

        var text: String {
            var footer = gaps.isEmpty ? "" : "\n" + gaps.map { "recorded gap (not folded across): " + $0.summary }.joined(separator: "\n")
            if !scrubbedFields.isEmpty {
                footer += "\nscrubbed by redaction before comparing (not compared): " + scrubbedFields.joined(separator: ", ")
            }
            guard let seq, let lastAgreeingSeq, let event, let diff else {
                return footer.isEmpty ? okText : okText + footer
            }
            return divergenceText(seq: seq, lastAgreeingSeq: lastAgreeingSeq, event: event, diff: diff) + footer
        }

        private var okText: String {
            "ok: replaying \(eventsFolded) events of \(sessions) session\(sessions == 1 ? "" : "s") reproduces all \(snapshotsCompared) recorded snapshots"
        }

        private func divergenceText(seq: Int64, lastAgreeingSeq: Int64, event: EventReport, diff: String) -> String {
            """
                diverged: the recorded state after seq \(seq) differs from the replayed one \
                (they agreed at seq \(lastAgreeingSeq), so an action in \(lastAgreeingSeq + 1)…\(seq) \
                now reduces differently)
                last action: \(event.summary)
                recorded (−) vs replayed (+):
                \(Rendering.diff(diff))
                """
        }
    }

    func run<State, Action>(with app: TypedAppReplay<State, Action>) throws -> Report {
        let result = try app.replayer.verify(session: session)
        var report = Report(
            agrees: result.divergence == nil, sessions: result.sessions,
            eventsFolded: result.eventsFolded, snapshotsCompared: result.snapshotsCompared, gaps: result.gaps,
            scrubbedFields: result.scrubbedFields
        )
        if let divergence = result.divergence {
            report.session = divergence.session
            report.seq = divergence.snapshotSeq
            report.lastAgreeingSeq = divergence.lastAgreeingSeq
            report.event = try EventReport(divergence.event, in: app.replayer.log)
            report.diff = divergence.diff
        }
        return report
    }
}
