import ArgumentParser
import Foundation
import RewindLog
#if PostgreSQL
import RewindPostgres
#endif

/// A replaying command that can ask its question of every session (`--all-sessions`): `bisect`,
/// `verify`.
protocol FleetCommand: Sendable {
    var options: LogOptions { get }
    var fleet: FleetOptions { get }
    /// The question, as the fleet report names it.
    var fleetQuestion: String { get }
    /// Whether a session answering means "no" (verify: a divergence).
    static var hitsAnswerNo: Bool { get }
    /// The command's answer for one session of `log`, as a fleet entry.
    func answer(in log: any LogReader, session: Int64) throws -> FleetEntry.Answer
}

extension FleetCommand {
    /// Asks every session (of the log file, or of the store the log argument names), prints the
    /// fleet report, and exits 1 when the answer is "no", 2 when a session could not be replayed.
    func runFleet() async throws {
        let source = try await fleetSource()
        let sessions = try fleet.window.choose(try await source.sessions(), start: \.startedAt, lastEvent: \.lastEventAt)
        let line = ProgressLine(json: options.json)
        let workers = fleet.workers
        let (entries, seconds) = try await line.around {
            try await FleetRun.run(source, sessions: sessions, workers: workers, line: line) { log, session in
                // The fleet's progress line is the one shown; each replay's own stays quiet.
                try ReplayFlags.$reportsProgress.withValue(false) { try answer(in: log, session: session) }
            }
        }
        let report = FleetReport(
            question: fleetQuestion, source: source.name, options: fleet, workers: min(workers, max(1, sessions.count)), seconds: seconds,
            entries: entries, hitsAnswerNo: Self.hitsAnswerNo, pullHint: pullHint(source)
        )
        try options.print(report)
        if report.failed > 0 { throw ExitCode(2) }
        if report.answersNo { throw ExitCode(1) }
    }

    /// The log file, the store the log argument names, or a collector's reports.
    private func fleetSource() async throws -> any FleetSource {
        if fleet.reports || ReportStore.isStore(at: options.path) {
            guard options.keyFile != nil else { throw InputError("a collector's reports are sealed: give the team's key with --key-file") }
            return try await ReportFleet.open(
                options.path, keys: try options.keys(), keyFile: options.keyFile, like: fleet.likeReport, appVersion: fleet.appVersion, install: fleet.install
            )
        }
        if fleet.likeReport != nil { throw InputError("--like-report chooses among a collector's reports: \(options.location) is a log") }
        guard case let .store(url) = options.location else {
            if fleet.install != nil { throw InputError("--install selects sessions in a store; a log file is one install's") }
            return FileFleet(log: try options.open(), appVersion: fleet.appVersion)
        }
        #if PostgreSQL
        return StoreFleet(location: try StoreURL.parse(url), keys: try options.keys(), appVersion: fleet.appVersion, install: fleet.install)
        #else
        throw InputError("\(options.location): this rewind was built without PostgreSQL (the PostgreSQL trait)")
        #endif
    }

    /// How to bring a session that answered back to look at it closely.
    private func pullHint(_ source: any FleetSource) -> String? {
        if let reports = source as? ReportFleet {
            return "to look at one closely: rewind serve '\(reports.name)' --key-file KEYS (its Reports view), or rewind report fetch '\(reports.name)' ID --output report.rwreport"
        }
        guard case .store = options.location else { return nil }
        return "to look at one closely: rewind pull '\(source.name)' --session UUID --output session.rewind"
    }
}
