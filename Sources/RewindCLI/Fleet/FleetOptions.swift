import ArgumentParser
import Foundation

/// `--all-sessions` and what goes with it: a fleet question (`bisect`, `verify`) asked of every
/// session on its own, in parallel, of a log file or a PostgreSQL store.
struct FleetOptions: ParsableArguments {
    @Flag(help: "Every session, each on its own, in parallel; the log may be a postgres:// store.")
    var allSessions = false
    @Option(help: ArgumentHelp("With --all-sessions: only sessions recorded by this app version.", valueName: "version"))
    var appVersion: String?
    @Option(help: ArgumentHelp("With --all-sessions on a store: only sessions of this install or device.", valueName: "id"))
    var install: String?
    /// With --all-sessions: only the sessions recording during this time.
    @OptionGroup var window: TimeWindow
    @Option(help: ArgumentHelp("With --all-sessions: sessions replayed at once, 1–64 (default: the machine's cores).", valueName: "n"))
    var jobs: Int?
    @Flag(help: "With --all-sessions: the log argument is a collector's store (rewind collect); each report is asked (a SQLite store is recognised without it).")
    var reports = false
    @Option(help: ArgumentHelp("With --all-sessions on a collector's store: only the reports of report ID's signature, as rewind reports groups them.", valueName: "id"))
    var likeReport: Int64?

    /// Checks the options against `--session`, which asks for one session instead.
    func validate(session: Int64?) throws {
        if !allSessions {
            for (given, option) in [
                (appVersion != nil, "--app-version"), (install != nil, "--install"), (window.since != nil, "--since"),
                (window.until != nil, "--until"), (jobs != nil, "--jobs"), (reports, "--reports"), (likeReport != nil, "--like-report"),
            ] where given {
                throw InputError("\(option) goes with --all-sessions")
            }
            return
        }
        if session != nil { throw InputError("--session and --all-sessions ask for different things: give one") }
        if let jobs, !(1...64).contains(jobs) { throw InputError("--jobs \(jobs): give 1 to 64") }
        if let appVersion, appVersion.isEmpty { throw InputError("--app-version: give a version") }
        if let install, install.isEmpty { throw InputError("--install: give a non-empty id") }
        if let likeReport, likeReport < 1 { throw InputError("--like-report \(likeReport): give a report's id, 1 or more") }
    }

    /// How many sessions to replay at once.
    var workers: Int { jobs ?? max(1, ProcessInfo.processInfo.activeProcessorCount) }
}
