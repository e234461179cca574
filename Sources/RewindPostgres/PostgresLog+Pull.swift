public import Foundation
import PostgresNIO
import Rewind
public import RewindLog

extension PostgresLog {
    /// Which sessions a pull brings back.
    public enum PullSelection: Sendable, Hashable {
        /// Sessions by their number in the store or their UUID.
        case sessions(numbers: [Int64], uuids: [UUID])
        /// Every session pushed from one log, by the log's identity.
        case log(UUID)
        /// Every session of one install or device.
        case install(String)
    }

    /// How far a pull has got.
    public struct PullProgress: Sendable, Hashable {
        /// Sessions finished, of all.
        public var sessionsDone: Int
        public var sessions: Int
        /// Events written so far, of all.
        public var events: Int64
        public var eventsTotal: Int64
    }

    /// What a pull did.
    public struct PullReport: Sendable, Hashable, Codable {
        /// The file written.
        public var path: String
        /// Sessions, events, snapshots and recorded gaps in it.
        public var sessions: Int
        public var events: Int64
        public var snapshots: Int
        public var gaps: Int
        /// The log the sessions were pushed from, whose identity and numbers the file has;
        /// `nil` when they were recorded into the store, and the file has the store's numbers.
        public var logID: UUID?
    }

    /// Brings sessions back from the store into a new SQLite log at `path`, for offline
    /// debugging: every `rewind` command and `Replayer` work on it as on the device's own log.
    ///
    /// Sessions pushed from a log come back under that log's identity and numbers — the same
    /// session ids and seqs as on the device, so a bug report's "seq 1234" means the same event
    /// — and pushing the file again adds nothing. Payloads, states, sources, shapes and symbols
    /// are kept byte for byte; an encrypted session stays encrypted and needs the same key.
    ///
    /// The sessions travel as a portable export (`PortableLog`), written next to `path` and
    /// imported with `EventLog.importLog(from:to:)`: a pulled log goes through every check an
    /// import makes, and nothing is left at `path` when the pull fails.
    ///
    /// - Parameters:
    ///   - selection: Which sessions; they must come from one log (each log's numbers are its
    ///     own: pull each into its own file).
    ///   - path: The log to create; it must not exist.
    ///   - progress: Called after each page of events.
    /// - Throws: `EventLogError.sessionNotFound` for a session number the store
    ///   lacks; `EventLogError.failed` when nothing matches or the sessions come
    ///   from more than one log; `EventLogError.readOnly` when `path` exists or
    ///   cannot be written.
    public func pull(
        _ selection: PullSelection, to path: String, progress: (@Sendable (PullProgress) -> Void)? = nil
    ) async throws(EventLogError) -> PullReport {
        let output = URL(fileURLWithPath: path)
        guard !FileManager.default.fileExists(atPath: path) else {
            throw .readOnly(path: path, detail: "the file exists already; pull creates a new log")
        }
        let folder = output.deletingLastPathComponent().path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue,
              FileManager.default.isWritableFile(atPath: folder) else {
            throw .readOnly(path: path, detail: "its folder \(folder) does not exist or cannot be written")
        }
        let export = output.deletingLastPathComponent().appendingPathComponent(".\(output.lastPathComponent).pull-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: export) }
        var report: PullReport
        do {
            report = try await writeExport(selection, to: export, path: path, progress: progress)
        } catch let error as EventLogError {
            throw error
        } catch {
            throw PostgresFailure.describe(error, at: location, doing: "pull into \(path)")
        }
        let log = try EventLog.importLog(from: export, to: path)
        try log.close()
        report.path = path
        return report
    }

    /// Writes the selected sessions as a portable export at `url`.
    private func writeExport(
        _ selection: PullSelection, to url: URL, path: String, progress: (@Sendable (PullProgress) -> Void)?
    ) async throws -> PullReport {
        let sessions = try await pulledSessions(selection)
        let origins = Set(sessions.map(\.origin))
        guard origins.count == 1, let origin = origins.first else {
            let logs = origins.map { $0?.uuidString.lowercased() ?? "recorded into the store" }.sorted()
            throw EventLogError.failed(
                path: location.description,
                reason: "the sessions come from \(origins.count) logs (\(logs.joined(separator: ", "))), each numbered on its own: pull each log's into its own file (--log ID)"
            )
        }
        let spaces = Set(sessions.compactMap(\.symbolSpace))
        guard spaces.count <= 1 else {
            throw EventLogError.failed(path: location.description, reason: "the sessions' binary payloads use \(spaces.count) symbol tables: pull them into separate files")
        }

        let writer = try ExportFileWriter(url: url)
        let encrypted = sessions.contains { $0.session.encryption != nil }
        try writer.header(version: encrypted ? PortableLog.version : 2, schemaVersion: EventLog.latestSchemaVersion, logID: origin)
        if let space = spaces.first {
            for row in try await rows("SELECT id, name FROM rewind.symbols WHERE space_id = \(space) ORDER BY id") {
                let (id, name) = try row.decode((Int64, String).self)
                try writer.symbol(id: id, name: name)
            }
        }
        var report = PullReport(path: path, sessions: sessions.count, events: 0, snapshots: 0, gaps: 0, logID: origin)
        let total = sessions.reduce(0) { $0 + $1.session.eventCount }
        // Pages sized by the payloads (or states) read last, from one session to the next: a
        // fleet's sessions are mostly one app's, and a page of 16 to begin each of thousands of
        // sessions would be a round trip more each.
        var snapshotsAsked = Self.pulledSnapshotPages.first, eventsAsked = Self.pulledEventPages.first
        for (index, pulled) in sessions.enumerated() {
            let number = pulled.session.id
            try writer.session(pulled.session, shapes: pulled.shapes)
            // Snapshots and events a page at a time, by the store's seq, each page sized by the
            // largest state or payload of the page before: memory stays flat, however large.
            var after = Int64.min
            while true {
                let asked = snapshotsAsked
                let page = try await rows("""
                    SELECT seq, coalesce(origin_seq, seq), time, kind, state FROM rewind.snapshots
                    WHERE session_id = \(pulled.storeID) AND seq > \(after) ORDER BY seq LIMIT \(Int64(asked))
                    """)
                var largest = 0
                for row in page {
                    let (seq, pulledSeq, time, kind, state) = try row.decode((Int64, Int64, Double, String, Data).self)
                    try writer.snapshot(session: number, seq: pulledSeq, time: time, kind: kind, state: state, isText: false)
                    after = seq
                    largest = max(largest, state.count)
                    report.snapshots += 1
                }
                if !page.isEmpty { snapshotsAsked = Self.pulledSnapshotPages.next(largest: largest) }
                if page.count < asked { break }
            }
            after = Int64.min
            while true {
                let asked = eventsAsked
                let page = try await rows("""
                    SELECT e.seq, coalesce(e.origin_seq, e.seq), e.time, a.name, e.payload, e.info, e.redaction,
                           src.file, src.function, src.line, src."column", src.origin, e.cause_distance, e.root_distance
                    FROM rewind.events AS e JOIN rewind.actions AS a ON a.id = e.action_id JOIN rewind.sources AS src ON src.id = e.source_id
                    WHERE e.session_id = \(pulled.storeID) AND e.seq > \(after)
                    ORDER BY e.seq LIMIT \(Int64(asked))
                    """)
                var largest = 0
                for row in page {
                    let columns = row.makeRandomAccess()
                    let seq = try columns[0].decode(Int64.self), line = try columns[9].decode(Int64.self), column = try columns[10].decode(Int64.self)
                    let source = ActionSource(
                        file: try columns[7].decode(String.self), function: try columns[8].decode(String.self),
                        // A negative line or column can only be tampering: read as 0, never trapped on.
                        line: UInt(clamping: line), column: UInt(clamping: column),
                        info: try columns[5].decode(String?.self), origin: ActionSource.Origin(rawValue: try columns[11].decode(String.self)) ?? .call
                    )
                    let pulledSeq = try columns[1].decode(Int64.self), payload = try columns[4].decode(Data?.self)
                    largest = max(largest, payload?.count ?? 0)
                    try writer.event(
                        seq: pulledSeq, session: number, time: try columns[2].decode(Double.self),
                        action: try columns[3].decode(String.self), payload: payload, isText: false,
                        source: source, redaction: try columns[6].decode(String?.self),
                        cause: LoggedEvent.linked(pulledSeq, back: try columns[12].decode(Int64?.self), atLeast: 1),
                        root: LoggedEvent.linked(pulledSeq, back: try columns[13].decode(Int64?.self), atLeast: 0)
                    )
                    after = seq
                }
                report.events += Int64(page.count)
                progress?(PullProgress(sessionsDone: index, sessions: sessions.count, events: report.events, eventsTotal: total))
                if !page.isEmpty { eventsAsked = Self.pulledEventPages.next(largest: largest) }
                if page.count < asked { break }
            }
        }
        let numbers = Dictionary(uniqueKeysWithValues: sessions.map { ($0.storeID, $0.session.id) })
        for row in try await rows("""
            SELECT g.session_id,
                   coalesce((SELECT origin_seq FROM rewind.events AS e WHERE e.session_id = g.session_id AND e.seq = g.after_seq),
                            (SELECT origin_seq FROM rewind.snapshots AS p WHERE p.session_id = g.session_id AND p.seq = g.after_seq),
                            g.after_seq),
                   g.lost, g.cases, g.reason, g.first_time, g.last_time, g.resumed_session_id
            FROM rewind.gaps AS g WHERE g.session_id = ANY(\(Array(numbers.keys)))
            ORDER BY g.session_id, g.after_seq
            """) {
            let (session, afterSeq, lost, cases, reason, firstTime, lastTime, resumed) = try row.decode(
                (Int64, Int64, Int64, String, String, Double, Double, Int64?).self
            )
            guard let number = numbers[session] else { continue }
            let counts = (try? JSONDecoder().decode([String: Int].self, from: Data(cases.utf8))) ?? [:]
            try writer.gap(LogGap(
                session: number, afterSeq: afterSeq, lost: Int(clamping: lost), cases: counts, reason: reason,
                firstTime: firstTime, lastTime: lastTime, resumedSession: resumed.flatMap { numbers[$0] }
            ))
            report.gaps += 1
        }
        try writer.finish()
        progress?(PullProgress(sessionsDone: sessions.count, sessions: sessions.count, events: report.events, eventsTotal: total))
        return report
    }

    /// A pull's pages of events: 16 first (their payloads' sizes are not known yet), then as
    /// many as 8 MiB of the last page's largest payload would make, at most 2,000. A page of
    /// 2,000 whatever the payloads held 2 GB for a log of megabyte payloads.
    static let pulledEventPages = PageSizing(first: 16, maximum: 2_000, bytes: 8 << 20)
    /// A pull's pages of snapshots, sized the same way by their states: at most 64.
    static let pulledSnapshotPages = PageSizing(first: 4, maximum: 64, bytes: 8 << 20)

    /// A session as the store holds it, numbered as the pulled log will number it.
    private struct PulledSession {
        var storeID: Int64
        var origin: UUID?
        var symbolSpace: Int64?
        var session: LogSession
        var shapes: SessionShapes?
    }

    /// The selected sessions, in the order of their pulled numbers.
    private func pulledSessions(_ selection: PullSelection) async throws -> [PulledSession] {
        // One statement for every kind of selection: the conditions not asked for match nothing.
        let (numbers, uuids, origin, install): ([Int64], [UUID], UUID?, String?) = switch selection {
        case let .sessions(numbers, uuids): (numbers, uuids, nil, nil)
        case let .log(origin): ([], [], origin, nil)
        case let .install(install): ([], [], nil, install)
        }
        let query: PostgresQuery = """
            SELECT s.id, s.origin, s.symbol_space_id, coalesce(s.origin_session, s.id), s.app_id, s.app_version,
                   s.action_schema_version, s.state_schema_version, s.codec, s.started_at,
                   coalesce((SELECT origin_seq FROM rewind.snapshots AS p WHERE p.session_id = s.id AND p.seq = s.base_seq), s.base_seq),
                   s.info, s.event_count, s.key_id, s.key_salt, s.key_check, a.shape, t.shape, s.ending, s.end_seq, s.ended_at, s.crash
            FROM rewind.sessions AS s
                 LEFT JOIN rewind.type_shapes AS a ON a.id = s.action_shape_id LEFT JOIN rewind.type_shapes AS t ON t.id = s.state_shape_id
            WHERE s.id = ANY(\(numbers)) OR s.uuid = ANY(\(uuids)) OR s.origin = \(origin) OR s.install_id = \(install)
            ORDER BY 4
            """
        var found: [PulledSession] = []
        for row in try await rows(query) {
            let columns = row.makeRandomAccess()
            func column<T: PostgresDecodable>(_ index: Int, _ type: T.Type) throws -> T { try columns[index].decode(T.self) }
            let storeID = try column(0, Int64.self), number = try column(3, Int64.self)
            let encryption = try column(13, String?.self).map { keyID in
                SessionEncryption(keyID: keyID, salt: try column(14, Data?.self) ?? Data(), check: try column(15, Data?.self) ?? Data())
            }
            let shapes = try SessionShapes(storedAction: column(16, String?.self), state: column(17, String?.self), session: number, path: location.description)
            found.append(PulledSession(
                storeID: storeID,
                origin: try column(1, UUID?.self),
                symbolSpace: try column(2, Int64?.self),
                session: LogSession(
                    id: number,
                    app: AppIdentity(
                        id: try column(4, String.self), version: try column(5, String.self),
                        actionSchemaVersion: try column(6, Int.self), stateSchemaVersion: try column(7, Int.self)
                    ),
                    codec: try column(8, String.self), startedAt: try column(9, Double.self), baseSeq: try column(10, Int64.self),
                    info: try column(11, String?.self), eventCount: try column(12, Int64.self), seqRange: nil, encryption: encryption,
                    actionFingerprint: shapes.action?.fingerprint, stateFingerprint: shapes.state?.fingerprint,
                    ending: try SessionEnding.stored(
                        kind: column(18, String?.self), seq: column(19, Int64?.self), time: column(20, Double?.self), crash: column(21, String?.self),
                        session: number, path: location.description
                    )
                ),
                shapes: shapes.action == nil && shapes.state == nil ? nil : shapes
            ))
        }
        guard !found.isEmpty else {
            throw EventLogError.failed(path: location.description, reason: "no session in the store matches \(selection.description)")
        }
        if case .sessions = selection {
            let storeIDs = Set(found.map(\.storeID))
            if let missing = numbers.first(where: { !storeIDs.contains($0) }) {
                throw EventLogError.sessionNotFound(path: location.description, session: missing)
            }
            let uuidsFound = try await Set(rows("SELECT uuid FROM rewind.sessions WHERE uuid = ANY(\(uuids))").map { try $0.decode(UUID.self) })
            if let missing = uuids.first(where: { !uuidsFound.contains($0) }) {
                throw EventLogError.failed(path: location.description, reason: "no session in the store has the UUID \(missing.uuidString.lowercased())")
            }
        }
        return found
    }
}

extension PostgresLog.PullSelection: CustomStringConvertible {
    public var description: String {
        switch self {
        case let .sessions(numbers, uuids): "sessions " + (numbers.map(String.init) + uuids.map { $0.uuidString.lowercased() }).joined(separator: ", ")
        case let .log(id): "log \(id.uuidString.lowercased())"
        case let .install(install): "install \(install)"
        }
    }
}
