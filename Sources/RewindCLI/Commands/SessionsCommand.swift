import ArgumentParser
import RewindLog

/// `rewind sessions PATH`: the recording sessions in a log (or in a PostgreSQL store).
struct SessionsCommand: ReportingCommand, AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessions",
        abstract: "List the recording sessions in a log, or in a PostgreSQL store.",
        discussion: """
            With --json, an array of sessions. Given a postgres:// store, lists its sessions with their store number, \
            UUID, install, and the log they were pushed from with their number there: what `pull --session` and \
            `bisect|verify --all-sessions --app-version|--install` choose by. With --since/--until, only the \
            sessions recording during that time: started by its end, with an event (or their start) at or after its \
            beginning; a duration counts back from the last event of the sessions listed.
            """
    )

    @OptionGroup var options: LogOptions
    @Option(help: ArgumentHelp("Only sessions recorded by this app version.", valueName: "version")) var appVersion: String?
    @Option(help: ArgumentHelp("In a store: only sessions of this install or device.", valueName: "id")) var install: String?
    @OptionGroup var window: TimeWindow

    func validate() throws {
        if let appVersion, appVersion.isEmpty { throw InputError("--app-version: give a version") }
        if let install, install.isEmpty { throw InputError("--install: give a non-empty id") }
    }

    /// A store's URL without `log=` lists the whole store's sessions.
    var readsOneLog: Bool { options.location.namesOneLog }

    mutating func run() async throws {
        if case let .store(url) = options.location, !options.location.namesOneLog {
            try options.print(try await StoreSessions.report(url: url, appVersion: appVersion, install: install, window: window))
        } else {
            try printReport()
        }
    }

    func report() throws -> Report {
        if install != nil { throw InputError("--install selects sessions in a store; a log is one install's") }
        let log = try options.open()
        let gaps = Dictionary(try log.gaps().map { ($0.session, $0) }, uniquingKeysWith: { first, _ in first })
        let sessions = try log.sessions().filter { appVersion == nil || $0.app.version == appVersion }.map { session in
            (session, try log.lastEventTime(of: session))
        }
        let chosen = try window.choose(sessions, start: \.0.startedAt, lastEvent: \.1)
        return Report(sessions: chosen.map { Session($0, lastEventAt: $1, endedBy: gaps[$0.id]) })
    }
}

extension SessionsCommand {
    /// One recording session.
    struct Session: Encodable {
        var id: Int64
        var app: String
        var appVersion: String
        var actionSchemaVersion: Int
        var stateSchemaVersion: Int
        var codec: String
        /// The id of the key its payloads and snapshots are encrypted with; absent in the clear.
        var keyID: String?
        /// ISO-8601, UTC.
        var startedAt: String
        /// ISO-8601, UTC; absent when the session has no events.
        var lastEventAt: String?
        /// The last seq assigned before the session began.
        var baseSeq: Int64
        var events: Int64
        /// Absent when the session has no events.
        var firstSeq: Int64?
        var lastSeq: Int64?
        var info: String?
        /// The fingerprints of the action and state types it was recorded with (see `schema`);
        /// absent when not recorded.
        var actionFingerprint: String?
        var stateFingerprint: String?
        /// The loss that ended the session, when a recorder could not write (see `check`).
        var gap: LogGap?
        /// How it ended (`closed`, `suspended`, `resumed`, `crashed` with its mark, `unclean`,
        /// `unknown`); absent while it is recorded, or when its writer died and no writer has
        /// looked since.
        var ending: SessionEnding?

        init(_ session: LogSession, lastEventAt: Double?, endedBy gap: LogGap?) {
            self.gap = gap
            self.lastEventAt = lastEventAt.map(Rendering.timestamp)
            (id, app, appVersion) = (session.id, session.app.id, session.app.version)
            (actionSchemaVersion, stateSchemaVersion) = (session.app.actionSchemaVersion, session.app.stateSchemaVersion)
            (codec, startedAt, baseSeq, events) = (session.codec, Rendering.timestamp(session.startedAt), session.baseSeq, session.eventCount)
            (firstSeq, lastSeq, info) = (session.seqRange?.lowerBound, session.seqRange?.upperBound, session.info)
            keyID = session.encryption?.keyID
            ending = session.ending
            (actionFingerprint, stateFingerprint) = (session.actionFingerprint, session.stateFingerprint)
        }
    }

    /// The sessions, oldest first; encoded as a bare array.
    struct Report: CommandReport {
        var sessions: [Session]

        func encode(to encoder: any Encoder) throws {
            try sessions.encode(to: encoder)
        }

        var text: String {
            guard !sessions.isEmpty else { return "no sessions" }
            // Text from the log (an app's identity, a gap's reason) and from lock files (a
            // hang mark's case and source, a crash mark's image path), which any process that
            // can write beside the log could have written: shown with control characters escaped.
            func shown(_ text: String) -> String { LogText.printable(text, limit: 300) }
            let header = ["session", "app", "version", "schemas (action/state)", "types (action/state)", "codec", "started", "events", "seqs", "ended"]
            let gaps = sessions.compactMap(\.gap).map { "ended by a gap: " + shown($0.summary) }
                + sessions.compactMap { session in
                    session.ending.flatMap { ending in ending.markSummary.map { "session \(session.id) \(ending.kind.rawValue): " + shown($0) } }
                }
            return Rendering.table([header] + sessions.map { session in
                [
                    "\(session.id)", shown(session.app), shown(session.appVersion),
                    "\(session.actionSchemaVersion)/\(session.stateSchemaVersion)",
                    session.actionFingerprint == nil && session.stateFingerprint == nil
                        ? "—" : "\(session.actionFingerprint?.prefix(8) ?? "—")/\(session.stateFingerprint?.prefix(8) ?? "—")",
                    session.codec + (session.keyID.map { ", encrypted (key \($0))" } ?? ""), session.startedAt,
                    "\(session.events)", session.firstSeq.map { "\($0)…\(session.lastSeq ?? $0)" } ?? "—",
                    session.ending.map { shown($0.label) } ?? "—",
                ]
            }) + (gaps.isEmpty ? "" : "\n" + gaps.joined(separator: "\n"))
        }
    }
}
