#if PostgreSQL
import ArgumentParser
import Foundation
import RewindLog
import RewindPostgres

/// `rewind pull postgres://… --session ID --output bug.rewind`: sessions from a PostgreSQL store
/// back into a SQLite log, for offline debugging.
struct PullCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pull",
        abstract: "Bring sessions from a PostgreSQL store back into a new log file.",
        discussion: """
            Sessions pushed from a log come back with that log's identity, session numbers and seqs, so every command \
            gives the same answers as on the device's own file (and pushing the file again adds nothing). The sessions \
            must come from one log: pull each log's into its own file. Encrypted sessions stay encrypted; read them with \
            --key-file as usual. Nothing is left at --output when the pull fails.
            """
    )

    @Argument(help: ArgumentHelp("The store: postgres://user@host:port/database[?sslmode=…].", valueName: "url"))
    var store: String
    @Option(name: .customLong("session"), parsing: .singleValue,
            help: ArgumentHelp("A session by its number in the store or its UUID (repeatable).", valueName: "id"))
    var sessions: [String] = []
    @Option(name: .customLong("log"), help: ArgumentHelp("Every session pushed from this log (its identity, a UUID).", valueName: "id"))
    var logID: String?
    @Option(help: ArgumentHelp("Every session of this install or device.", valueName: "id"))
    var install: String?
    @Option(name: [.customShort("o"), .customLong("output")], help: ArgumentHelp("The log file to create.", valueName: "path"))
    var output: String
    @OptionGroup var format: OutputFormat

    func validate() throws {
        let chosen = [!sessions.isEmpty, logID != nil, install != nil, urlLocation?.log != nil, urlLocation?.install != nil].filter { $0 }.count
        guard chosen == 1 else { throw InputError("choose the sessions with one of --session, --log or --install (or log= or install= in the URL)") }
        if let logID, UUID(uuidString: logID) == nil { throw InputError("--log \(logID): not a log identity (a UUID)") }
        if let install, install.isEmpty { throw InputError("--install: give a non-empty id") }
        _ = try selection()
        guard !output.isEmpty else { throw InputError("--output: give a file name") }
        guard !FileManager.default.fileExists(atPath: output) else {
            throw InputError("--output \(output): the file exists already; pull creates a new log")
        }
    }

    /// The store's location, if the URL parses (`run` reports why it does not).
    private var urlLocation: PostgresLocation? {
        try? PostgresLocation(parsing: store)
    }

    /// The sessions asked for.
    private func selection() throws -> PostgresLog.PullSelection {
        if let logID = logID.flatMap(UUID.init(uuidString:)) ?? urlLocation?.log { return .log(logID) }
        if let install = install ?? urlLocation?.install { return .install(install) }
        var numbers: [Int64] = [], uuids: [UUID] = []
        for session in sessions {
            if let uuid = UUID(uuidString: session) {
                uuids.append(uuid)
            } else if let number = Int64(session), number >= 1 {
                numbers.append(number)
            } else {
                throw InputError("--session \(session): give a session's number in the store (1 or more) or its UUID")
            }
        }
        return .sessions(numbers: numbers, uuids: uuids)
    }

    func run() async throws {
        let location = try StoreURL.parse(store)
        let source = try await PostgresLog.open(location, mode: .readOnly)
        let line = ProgressLine(json: format.json)
        let report: PostgresLog.PullReport
        do {
            report = try await line.around {
                try await source.pull(try selection(), to: output) { progress in
                    line.update("pulling: session \(progress.sessionsDone)/\(progress.sessions), \(progress.events) of \(progress.eventsTotal) events")
                }
            }
        } catch {
            await source.close()
            throw error
        }
        await source.close()
        try format.print(Report(store: location.description, report: report))
    }
}

extension PullCommand {
    /// What the pull wrote.
    struct Report: CommandReport {
        /// The store, without its password.
        var store: String
        var path: String
        var sessions: Int
        var events: Int64
        var snapshots: Int
        var gaps: Int
        /// The identity of the log the sessions came from, which the file keeps.
        var logID: String?

        init(store: String, report: PostgresLog.PullReport) {
            self.store = store
            (path, sessions, events, snapshots, gaps) = (report.path, report.sessions, report.events, report.snapshots, report.gaps)
            logID = report.logID?.uuidString.lowercased()
        }

        var text: String {
            "pulled \(sessions) session\(sessions == 1 ? "" : "s") (\(events) events, \(snapshots) snapshots, \(gaps) gaps) from \(store) into \(path)"
                + (logID.map { "; the sessions of log \($0), with its numbers" } ?? "")
        }
    }
}
#endif
