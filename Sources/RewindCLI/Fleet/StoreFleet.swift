#if PostgreSQL
import Foundation
import RewindLog
import RewindPostgres
import Synchronization

/// The sessions of a PostgreSQL store. Each worker has its own connection and replays each
/// session in place, through a `PostgresLogReader` of the log it belongs to (so with its
/// log's numbers, keys and symbols): the same read path as a file, and nothing on disk.
struct StoreFleet: FleetSource {
    let location: PostgresLocation
    let keys: LogKeys
    let appVersion: String?
    let install: String?

    var name: String { location.description }

    func sessions() async throws -> [FleetSession] {
        let store = try await PostgresLog.open(location, mode: .readOnly)
        do {
            // A URL's `log=` narrows the fleet to the sessions pushed from that log, `install=` to
            // that install's (as --install does).
            let sessions = try await store.sessions(appVersion: appVersion, install: install ?? location.install)
                .filter { location.log == nil || $0.log == location.log }
            await store.close()
            return sessions.map { stored in
                FleetSession(
                    id: stored.id, uuid: stored.uuid, install: stored.install, log: stored.log, numberInLog: stored.numberInLog,
                    appVersion: stored.app.version, events: stored.eventCount, startedAt: stored.startedAt, lastEventAt: stored.lastEventAt
                )
            }
        } catch {
            await store.close()
            throw error
        }
    }

    func makeWorker() async throws -> any FleetWorker {
        Worker(store: try await PostgresLog.open(location, mode: .readOnly), keys: keys)
    }

    /// Reads each session in place, through a reader of its log (kept for the log's other
    /// sessions: its symbols are learned once).
    final class Worker: FleetWorker {
        let store: PostgresLog
        let keys: LogKeys
        private let readers = Mutex<[String: PostgresLogReader]>([:])

        init(store: PostgresLog, keys: LogKeys) {
            (self.store, self.keys) = (store, keys)
        }

        func withSession<T>(_ session: FleetSession, _ body: (any LogReader, Int64) throws -> T) async throws -> T {
            let key = session.log.map { "log \($0)" } ?? "install \(session.install ?? "")"
            let reader: PostgresLogReader
            if let known = readers.withLock({ $0[key] }) {
                reader = known
            } else {
                reader = try await store.reader(origin: session.log, install: session.install, keys: keys)
                readers.withLock { $0[key] = reader }
            }
            return try body(reader, session.numberInLog ?? session.id)
        }

        func close() async {
            // A reader that connected again (the server restarted) holds its own connection.
            for reader in readers.withLock({ Array($0.values) }) { await reader.close() }
            await store.close()
        }
    }
}
#endif
