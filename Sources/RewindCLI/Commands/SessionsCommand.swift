import ArgumentParser
import RewindLog

/// `rewind sessions PATH`: the recording sessions in a log.
struct SessionsCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessions",
        abstract: "List the recording sessions in a log.",
        discussion: "With --json, an array of sessions."
    )

    @OptionGroup var options: LogOptions

    func report() throws -> Report {
        let log = try options.open()
        let gaps = Dictionary(try log.gaps().map { ($0.session, $0) }, uniquingKeysWith: { first, _ in first })
        return Report(sessions: try log.sessions().map { Session($0, endedBy: gaps[$0.id]) })
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

        init(_ session: LogSession, endedBy gap: LogGap?) {
            self.gap = gap
            (id, app, appVersion) = (session.id, session.app.id, session.app.version)
            (actionSchemaVersion, stateSchemaVersion) = (session.app.actionSchemaVersion, session.app.stateSchemaVersion)
            (codec, startedAt, baseSeq, events) = (session.codec, Rendering.timestamp(session.startedAt), session.baseSeq, session.eventCount)
            (firstSeq, lastSeq, info) = (session.seqRange?.lowerBound, session.seqRange?.upperBound, session.info)
            keyID = session.encryption?.keyID
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
            let header = ["session", "app", "version", "schemas (action/state)", "types (action/state)", "codec", "started", "events", "seqs"]
            let gaps = sessions.compactMap(\.gap).map { "ended by a gap: " + $0.summary }
            return Rendering.table([header] + sessions.map { session in
                [
                    "\(session.id)", session.app, session.appVersion,
                    "\(session.actionSchemaVersion)/\(session.stateSchemaVersion)",
                    session.actionFingerprint == nil && session.stateFingerprint == nil
                        ? "—" : "\(session.actionFingerprint?.prefix(8) ?? "—")/\(session.stateFingerprint?.prefix(8) ?? "—")",
                    session.codec + (session.keyID.map { ", encrypted (key \($0))" } ?? ""), session.startedAt,
                    "\(session.events)", session.firstSeq.map { "\($0)…\(session.lastSeq ?? $0)" } ?? "—",
                ]
            }) + (gaps.isEmpty ? "" : "\n" + gaps.joined(separator: "\n"))
        }
    }
}
