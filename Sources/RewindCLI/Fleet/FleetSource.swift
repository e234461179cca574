import Foundation
import RewindLog

/// Where a fleet run's sessions come from: a log file, (with the PostgreSQL trait) a store, or
/// a collector's reports (``ReportFleet``).
protocol FleetSource: Sendable {
    /// The source as reports name it (a store without its password).
    var name: String { get }
    /// The sessions to replay, oldest first.
    func sessions() async throws -> [FleetSession]
    /// What one worker reads sessions through: a store connection of its own.
    func makeWorker() async throws -> any FleetWorker
}

/// Reads one session at a time for a fleet run's worker.
protocol FleetWorker: Sendable {
    /// Runs `body` with a log holding `session`, and the session's number in it.
    func withSession<T>(_ session: FleetSession, _ body: (any LogReader, Int64) throws -> T) async throws -> T
    /// Lets go of what the worker holds.
    func close() async
}

/// One session of a fleet run; in a report, its times are ISO-8601.
struct FleetSession: Sendable, Encodable {
    /// Its number: in the log file, or in the store.
    var id: Int64
    /// In a store: its global identity, install, and its log and number there.
    var uuid: UUID?
    var install: String?
    var log: UUID?
    var numberInLog: Int64?
    /// A collector's report, by its name in the store (`STORE#ID`); its id is ``id``.
    var report: String?
    var appVersion: String
    /// How many events it holds (`nil`: not known before it is opened, as a sealed report's).
    var events: Int64?
    /// When it started, and when its last event was recorded (`nil`: it has none), in seconds
    /// since 1970: what `--since`/`--until` choose by.
    var startedAt: Double
    var lastEventAt: Double?

    private enum CodingKeys: String, CodingKey {
        case id, uuid, install, log, numberInLog, report, appVersion, events, startedAt, lastEventAt
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encodeIfPresent(uuid, forKey: .uuid)
        try container.encodeIfPresent(install, forKey: .install)
        try container.encodeIfPresent(log, forKey: .log)
        try container.encodeIfPresent(numberInLog, forKey: .numberInLog)
        try container.encodeIfPresent(report, forKey: .report)
        try container.encode(appVersion, forKey: .appVersion)
        try container.encodeIfPresent(events, forKey: .events)
        try container.encode(Rendering.timestamp(startedAt), forKey: .startedAt)
        try container.encodeIfPresent(lastEventAt.map(Rendering.timestamp), forKey: .lastEventAt)
    }
}

/// The sessions of one log file, read by every worker through the same (read-only) log.
struct FileFleet: FleetSource, FleetWorker {
    let log: any LogReader
    let appVersion: String?

    var name: String { log.path }

    func sessions() async throws -> [FleetSession] {
        try log.sessions().filter { appVersion == nil || $0.app.version == appVersion }.map { session in
            FleetSession(
                id: session.id, appVersion: session.app.version, events: session.eventCount, startedAt: session.startedAt,
                lastEventAt: try log.lastEventTime(of: session)
            )
        }
    }

    func makeWorker() async throws -> any FleetWorker { self }

    func withSession<T>(_ session: FleetSession, _ body: (any LogReader, Int64) throws -> T) async throws -> T {
        try body(log, session.id)
    }

    func close() async {}
}
