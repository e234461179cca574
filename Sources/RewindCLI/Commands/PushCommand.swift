#if PostgreSQL
import ArgumentParser
import Foundation
import RewindLog
import RewindPostgres

/// `rewind push LOG postgres://…`: a device log's sessions into a PostgreSQL store.
struct PushCommand: LogReadingCommand, AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "Copy a log's sessions into a PostgreSQL store (idempotent, resumable).",
        discussion: """
            Pushing the same log twice adds nothing; a push cut short (killed, the server restarted) loses nothing and \
            finishes when run again. The store's schema is created or migrated first. Credentials come from the URL, \
            PGPASSWORD or ~/.pgpass; errors never show the password. A log older than schema 9 has no identity yet and \
            is migrated in place first, to get one.
            """
    )

    /// The log pushed: a file, or one log of another store (`postgres://…?log=ID`).
    @OptionGroup var options: LogOptions
    @Argument(help: ArgumentHelp("The store: postgres://user@host:port/database[?sslmode=…].", valueName: "url"))
    var store: String
    @Option(help: "The install or device the log came from, kept with each session (default: the log's identity).")
    var install: String?
    @Option(help: "Events per transaction (1–10000; fewer once their payloads reach 8 MiB).") var batchSize = PostgresLog.defaultPushBatchSize


    func validate() throws {
        guard (1...10_000).contains(batchSize) else { throw InputError("--batch-size \(batchSize): give 1 to 10000 events") }
        if let install, install.isEmpty { throw InputError("--install: give a non-empty id") }
    }

    func run() async throws {
        let location = try StoreURL.parse(store)
        if location.log != nil || location.install != nil {
            throw InputError("\(location): log= and install= name what to read; push into the store without them (--install sets the install)")
        }
        // A file, or one log of another store, read in place: it moves between stores as is.
        var log = try options.open()
        if case let .file(path) = options.location, try log.identity() == nil {
            // Older than identities: give it one, for good, so that pushing it again is recognised.
            log = try EventLog(path: path, keys: options.keys())
            FileHandle.standardError.write(Data("rewind: migrated \(path) to log schema \(EventLog.latestSchemaVersion) to give it an identity\n".utf8))
        }
        guard let identity = try log.identity() else {
            switch options.location {
            case .file: throw InputError("\(log.path): the log has no identity, even after migrating it")
            case .store:
                throw InputError("\(log.path): sessions recorded into a store have no log identity to push them by: pull them into a file (`rewind pull --install`) and push that")
            }
        }
        let target = try await PostgresLog.open(location)
        let line = ProgressLine(json: options.json)
        let report: PostgresLog.PushReport
        do {
            report = try await line.around {
                try await target.push(log, install: install, batchSize: batchSize) { progress in
                    line.update("pushing: session \(progress.sessionsDone)/\(progress.sessions), \(progress.events) of \(progress.eventsTotal) events")
                }
            }
        } catch {
            await target.close()
            throw error
        }
        await target.close()
        try options.print(Report(store: location.description, logID: identity, report: report))
    }
}

extension PushCommand {
    /// What the push did: sessions and events added now and already there.
    struct Report: CommandReport {
        /// The store, without its password.
        var store: String
        /// The log's identity: `rewind pull --log` brings its sessions back.
        var logID: String
        var sessions: Int
        var newSessions: Int
        var events: Int64
        var alreadyThere: Int64
        var snapshots: Int
        var gaps: Int

        init(store: String, logID: UUID, report: PostgresLog.PushReport) {
            self.store = store
            self.logID = logID.uuidString.lowercased()
            (sessions, newSessions, events, alreadyThere) = (report.sessions, report.newSessions, report.events, report.alreadyThere)
            (snapshots, gaps) = (report.snapshots, report.gaps)
        }

        var text: String {
            "pushed \(events) events (\(newSessions) new of \(sessions) sessions, \(snapshots) snapshots, \(gaps) gaps) to \(store)"
                + (alreadyThere > 0 ? "; \(alreadyThere) events were there already" : "") + "\nlog \(logID) (rewind pull --log \(logID) brings it back)"
        }
    }
}
#endif
