import ArgumentParser
import RewindLog
import RewindReplay

/// `rewind diff PATH --at SEQ` or `--from A --to B`.
struct DiffCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Show what an action changed (--at), or how two points differ (--from, --to).",
        discussion: "Lines starting with − are the state before, + after."
    )

    @OptionGroup var options: LogOptions
    @OptionGroup var replay: ReplayFlags
    @Option(help: "The action whose change to show.") var at: Int64?
    @Option(help: "The first point (the state after this seq).") var from: Int64?
    @Option(help: "The second point.") var to: Int64?
    @OptionGroup var scope: SessionScope

    func validate() throws {
        switch (at, from, to) {
        case (.some, nil, nil), (nil, .some, .some): break
        default: throw ValidationError("give either --at SEQ, or both --from SEQ and --to SEQ")
        }
        try InputError.requirePositive(at, "--at")
        try InputError.requirePositive(from, "--from")
        try InputError.requirePositive(to, "--to")
    }

    func report() throws -> Report {
        let log = try options.open()
        let seqs = [at, from, to].compactMap { $0 }
        try scope.check(seqs, in: log)
        return try replay.replay(log, sessions: try seqs.map { try log.session(containing: $0) }).run(self)
    }
}

extension DiffCommand: ReplayingCommand {
    /// What one action changed (`--at`: `event` is set), or how two points differ
    /// (`--from`/`--to`: `from` and `to` are set). `diff` is absent when nothing differs.
    struct Report: CommandReport {
        var seq: Int64?
        var event: EventReport?
        var from: Int64?
        var to: Int64?
        var diff: String?
        private var heading: String

        init(change: ActionDiff<some Sendable, some Sendable>, in log: any LogReader) throws {
            seq = change.event.seq
            event = try EventReport(change.event, in: log)
            diff = change.diff
            heading = Rendering.line(change.event)
        }

        init(from: Int64, to: Int64, diff: String?) {
            (self.from, self.to, self.diff) = (from, to, diff)
            heading = "state after seq \(from) (−) → after seq \(to) (+):"
        }

        var text: String {
            heading + "\n" + Rendering.diff(diff ?? (event == nil ? "(no difference)" : "(the action changed nothing)"))
        }

        private enum CodingKeys: String, CodingKey {
            case seq, event, from, to, diff
        }
    }

    func run<State, Action>(with app: TypedAppReplay<State, Action>) throws -> Report {
        if let at { return try Report(change: try app.replayer.diff(at: at), in: app.replayer.log) }
        guard let from, let to else { throw ValidationError("give either --at SEQ, or both --from SEQ and --to SEQ") }
        return Report(from: from, to: to, diff: try app.replayer.diff(from: from, to: to))
    }
}
