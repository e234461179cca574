#if PostgreSQL
import Foundation
import RewindLog
import RewindPostgres

/// The sessions of a PostgreSQL store. Each worker has its own connection and brings each
/// session into a scratch log of its own (``PostgresLog/pull(_:to:progress:)``: the session
/// with its log's numbers, keys and symbols), replays it there and deletes it — so a fleet run
/// replays through the same read path as a file, and holds one session per worker on disk.
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
                    appVersion: stored.app.version, events: stored.eventCount
                )
            }
        } catch {
            await store.close()
            throw error
        }
    }

    func makeWorker() async throws -> any FleetWorker {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-fleet-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw InputError("cannot create a scratch folder in \(FileManager.default.temporaryDirectory.path): \(error.localizedDescription)")
        }
        // An empty log, made once per worker and copied for each session: creating a log runs
        // every migration, which costs more than pulling a short session (measured: most of a
        // pull's time went to parsing the schema and syncing it to disk).
        let template = scratch.appendingPathComponent("empty.rewind").path
        try EventLog(path: template).close()
        return Worker(store: try await PostgresLog.open(location, mode: .readOnly), keys: keys, scratch: scratch, template: template)
    }

    struct Worker: FleetWorker {
        let store: PostgresLog
        let keys: LogKeys
        let scratch: URL
        let template: String

        func withSession<T>(_ session: FleetSession, _ body: (EventLog, Int64) throws -> T) async throws -> T {
            let path = scratch.appendingPathComponent("session-\(session.id).rewind").path
            defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
            try FileManager.default.copyItem(atPath: template, toPath: path)
            let log = try EventLog(path: path, keys: keys)
            defer { try? log.close() }
            _ = try await store.pull(.sessions(numbers: [session.id], uuids: []), into: log, export: scratch.appendingPathComponent("session.jsonl"))
            return try body(log, session.numberInLog ?? session.id)
        }

        func close() async {
            await store.close()
            try? FileManager.default.removeItem(at: scratch)
        }
    }
}
#endif
