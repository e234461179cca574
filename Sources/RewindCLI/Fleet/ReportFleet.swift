import Foundation
import RewindLog

/// The reports of a collector's store (`rewind collect --store`: a SQLite file, or a PostgreSQL
/// URL), each asked on its own as a fleet session: `rewind bisect STORE --all-sessions` finds
/// where each report breaks the invariant; `--like-report ID` narrows it to the reports of
/// report ID's signature, grouped as `rewind reports` groups them (with the same key, so by crash
/// site too).
///
/// Each worker reads reports through a store connection of its own, writes one at a time, sealed
/// as stored, into a folder of the run's own (owner-only), and opens it as `rewind bisect
/// REPORT` would: so a report recorded by another build's types is refused the same way
/// (`--allow-drift`). The file goes as soon as it has been asked; the folder when the run ends.
final class ReportFleet: FleetSource {
    /// The store, as the command line names it (a URL's password included: it is only parsed).
    let location: String
    /// The store as reports name it (no password).
    let name: String
    let keys: LogKeys
    let keyFile: String?
    let like: Int64?
    let appVersion: String?
    let install: String?
    private let scratch: ReportScratch

    private init(location: String, name: String, keys: LogKeys, keyFile: String?, like: Int64?, appVersion: String?, install: String?) throws {
        (self.location, self.name, self.keys, self.keyFile, self.like, self.appVersion, self.install) = (location, name, keys, keyFile, like, appVersion, install)
        scratch = try ReportScratch()
    }

    /// The reports of the store at `location`, which must open.
    static func open(_ location: String, keys: LogKeys, keyFile: String?, like: Int64?, appVersion: String?, install: String?) async throws -> ReportFleet {
        let store = try await CollectorStores.open(location)
        let name = store.name
        await store.close()
        return try ReportFleet(location: location, name: name, keys: keys, keyFile: keyFile, like: like, appVersion: appVersion, install: install)
    }

    func sessions() async throws -> [FleetSession] {
        var chosen: Set<String>?
        if let like {
            let wanted = "\(name)#\(like)"
            let triage = try await ReportsCommand.triage([location], keyFile: keyFile)
            guard let group = triage.groups.first(where: { $0.reports.contains(wanted) }) else {
                let unreadable = triage.unreadable.first { $0.file == wanted }
                throw InputError("--like-report \(like): " + (unreadable.map { "report \(like) cannot be read: \($0.reason)" } ?? "\(name) has no report \(like)"))
            }
            chosen = Set(group.reports)
        }
        let store = try await CollectorStores.open(location)
        let stored: [CollectedReport]
        do { stored = try await store.allReports() } catch {
            await store.close()
            throw InputError("\(error)")
        }
        await store.close()
        return stored
            .filter { entry in
                chosen.map { $0.contains("\(name)#\(entry.id)") } ?? true
                    && (appVersion == nil || entry.header.app.version == appVersion) && (install == nil || entry.install == install)
            }
            .sorted { $0.id < $1.id }
            .map { entry in
                FleetSession(
                    id: entry.id, install: entry.install, report: "\(name)#\(entry.id)", appVersion: entry.header.app.version, events: nil,
                    startedAt: entry.header.createdAt, lastEventAt: entry.header.createdAt
                )
            }
    }

    func makeWorker() async throws -> any FleetWorker {
        Worker(store: try await CollectorStores.open(location), fleet: self)
    }

    /// Opens each report as a file of its own, asks it, and deletes it.
    final class Worker: FleetWorker {
        let store: any CollectorStore
        let fleet: ReportFleet

        init(store: any CollectorStore, fleet: ReportFleet) {
            (self.store, self.fleet) = (store, fleet)
        }

        func withSession<T>(_ session: FleetSession, _ body: (any LogReader, Int64) throws -> T) async throws -> T {
            guard let bytes = try await store.bytes(id: session.id) else { throw InputError("deleted from the store since listed") }
            let file = try fleet.scratch.write(bytes, id: session.id)
            defer { try? FileManager.default.removeItem(atPath: file) }
            let log = try OpenLogs.readFile(file, keys: fleet.keys)
            defer { try? log.close() }
            // A report holds one session: its window of the session the device recorded.
            guard let number = try log.sessions().first?.id else { throw InputError("the report holds no session") }
            return try body(log, number)
        }

        func close() async {
            await store.close()
        }
    }
}
