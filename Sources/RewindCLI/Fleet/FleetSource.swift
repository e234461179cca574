import Foundation
import RewindLog

/// Where a fleet run's sessions come from: a log file, or (with the PostgreSQL trait) a store.
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

/// One session of a fleet run.
struct FleetSession: Sendable, Codable {
    /// Its number: in the log file, or in the store.
    var id: Int64
    /// In a store: its global identity, install, and its log and number there.
    var uuid: UUID?
    var install: String?
    var log: UUID?
    var numberInLog: Int64?
    var appVersion: String
    var events: Int64
}

/// The sessions of one log file, read by every worker through the same (read-only) log.
struct FileFleet: FleetSource, FleetWorker {
    let log: any LogReader
    let appVersion: String?

    var name: String { log.path }

    func sessions() async throws -> [FleetSession] {
        try log.sessions().filter { appVersion == nil || $0.app.version == appVersion }.map { session in
            FleetSession(id: session.id, appVersion: session.app.version, events: session.eventCount)
        }
    }

    func makeWorker() async throws -> any FleetWorker { self }

    func withSession<T>(_ session: FleetSession, _ body: (any LogReader, Int64) throws -> T) async throws -> T {
        try body(log, session.id)
    }

    func close() async {}
}
