import ArgumentParser
import RewindLog
import RewindReplay

/// `rewind bisect PATH --invariant NAME` or `--where EXPR`.
struct BisectCommand: ReportingCommand, AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bisect",
        abstract: "Find the first action that breaks an invariant, or after which a condition holds.",
        discussion: """
            --invariant names one of the app's registered invariants (see `apps`); --where takes a \
            condition on the state's JSON, e.g. 'cart.total < 0' or 'cart.lines.count >= 3'. \
            Exits 1 when no action does it. With --all-sessions, every session is searched on its own, \
            in parallel — of the log file, or of a PostgreSQL store given by its postgres:// URL — and the \
            report lists each session where it happens, with its first bad seq and source.
            """
    )

    @OptionGroup var options: LogOptions
    @OptionGroup var replay: ReplayFlags
    @OptionGroup var target: ConditionOptions
    @Flag(help: "The condition stays true once true: search by snapshots first (faster).") var monotonic = false
    @Flag(name: .customLong("skip-ahead"), help: .hidden) var oldSkipAhead = false
    @OptionGroup var fleet: FleetOptions

    /// A fleet question asks the store itself, a session at a time.
    var readsOneLog: Bool { !fleet.allSessions }

    mutating func validate() throws {
        if oldSkipAhead {
            Deprecated.note("--skip-ahead", use: "--monotonic")
            monotonic = true
            oldSkipAhead = false
        }
        try fleet.validate(session: target.session)
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
        return try target.app(in: log, with: replay).run(self)
    }
}

extension BisectCommand: FleetCommand {
    var fleetQuestion: String {
        target.invariant.map { "sessions that break \($0)" } ?? "sessions where \(target.condition ?? "") holds"
    }

    static var hitsAnswerNo: Bool { false }

    func answer(in log: any LogReader, session: Int64) throws -> FleetEntry.Answer {
        var command = self
        command.target.session = session
        let report = try command.target.app(in: log, with: replay).run(command)
        let status: FleetEntry.Status = !report.found ? .notFound : report.atStart == true ? .atStart : .found
        return FleetEntry.Answer(status: status, seq: report.seq, event: report.event, eventsFolded: report.eventsFolded)
    }
}

extension BisectCommand: ReplayingCommand {
    /// Where the condition first holds: after an action (`seq`, `event`, `diff`), already in a
    /// session's initial state (`atStart`), or nowhere (`found` is false).
    struct Report: CommandReport {
        var found: Bool
        var answersNo: Bool { !found }
        /// The condition, as the text report names it.
        var condition: String
        var seq: Int64?
        var event: EventReport?
        /// The gesture or outside event that started the breaking action's chain, when the
        /// breaking action is not a root itself and the chain is known.
        var rootEvent: EventReport?
        var diff: String?
        /// True when the condition already holds in a session's initial state.
        var atStart: Bool?
        var session: Int64?
        var eventsFolded: Int
        var snapshotsChecked: Int?
        /// Losses recorded in the sessions searched; each session is searched from its own
        /// initial state, never across one.
        var gaps: [LogGap] = []
        private var summary: String

        var text: String {
            summary + gaps.map { "\nrecorded gap (not folded across): " + $0.summary }.joined()
        }

        private enum CodingKeys: String, CodingKey {
            case found, condition, seq, event, rootEvent, diff, atStart, session, eventsFolded, snapshotsChecked, gaps
        }

        init<State, Action>(_ outcome: BisectOutcome<State, Action>, in log: any LogReader, labels: Condition.Labels) throws {
            condition = labels.found
            switch outcome {
            case let .found(change, stats):
                (found, seq, event, diff) = (true, change.event.seq, try EventReport(change.event, in: log), change.diff)
                (eventsFolded, snapshotsChecked) = (stats.eventsFolded, stats.snapshotsChecked)
                // Why the breaking action happened: the gesture its chain started with.
                let chain = change.event.isRoot ? nil : try log.causalChain(to: change.event.seq)
                let root = chain.flatMap { $0.start == .root ? $0.events.first : nil }
                rootEvent = try root.map { try EventReport($0, in: log) }
                let started = root.map { "\nstarted by seq \($0.seq): " + Rendering.line($0) + " (rewind why --at \(change.event.seq))" } ?? ""
                summary = """
                    first action after which \(labels.found): seq \(change.event.seq)
                    \(Rendering.line(change.event))\(started)
                    \(Rendering.diff(change.diff ?? "(no change)"))
                    (checked \(stats.snapshotsChecked) snapshots, folded \(stats.eventsFolded) events)
                    """
            case let .holdsAtStart(session, seq, stats):
                (found, atStart, self.session, self.seq, eventsFolded) = (true, true, session, seq, stats.eventsFolded)
                summary = "\(labels.found) already in session \(session)'s initial state (seq \(seq)), before any action"
            case let .notFound(stats):
                (found, eventsFolded) = (false, stats.eventsFolded)
                summary = "\(labels.never) (folded \(stats.eventsFolded) events)"
            }
        }
    }

    func run<State, Action>(with app: TypedAppReplay<State, Action>) throws -> Report {
        let (outcome, labels) = try app.searching(for: try target.parsedCondition()) { matches in
            try app.replayer.bisect(session: target.session, skippingAhead: monotonic, where: matches)
        }
        var report = try Report(outcome, in: app.replayer.log, labels: labels)
        report.gaps = try app.replayer.log.gaps(session: target.session)
        return report
    }
}
