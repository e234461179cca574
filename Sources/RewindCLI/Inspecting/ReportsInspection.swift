import Foundation
import RewindInspector
import RewindLog
import Synchronization

/// The inspector's API over a collector's store (`rewind serve STORE`): its Reports view.
///
/// - `GET /api/reports` answers with `rewind reports STORE --json`: the reports grouped by
///   signature, with counts, builds and when seen, and each group's reports.
/// - Every other call names one report, `report=ID` (its id in the store), and is answered as
///   `rewind serve` answers it over that report's file: `/api/report?report=7` is
///   `rewind report show` (its trigger's seq among the details), `/api/events?report=7&…` its
///   timeline, `/api/state?report=7&at=…` a state, and so on. The report is fetched once,
///   sealed as stored, into a folder only this user can read, and opened with `serve`'s
///   `--key-file`; a few stay open (``keptReports``), and the folder goes when `serve` stops.
///
/// The store is only read: reports deleted meanwhile are answered 404.
struct ReportsInspection: InspectorAPI {
    /// The store as the command line names it (a URL's password included: it is only parsed).
    let store: String
    /// The store as answers name it (no password).
    let name: String
    let keyFile: String?
    let skipUndecodable: Bool
    let allowDrift: Bool
    private let fetched: FetchedReports

    /// How many fetched reports stay open at once: the oldest opened is closed past it.
    static let keptReports = 16

    init(store: String, name: String, keyFile: String?, skipUndecodable: Bool, allowDrift: Bool) throws {
        (self.store, self.name, self.keyFile, self.skipUndecodable, self.allowDrift) = (store, name, keyFile, skipUndecodable, allowDrift)
        fetched = try FetchedReports()
    }

    var listsReports: Bool { true }

    func answer(_ call: InspectorCall, in job: InspectorJob) async -> InspectorResponse {
        do {
            if call.endpoint == "reports" {
                if let unknown = call.parameters.first {
                    throw BadCall(description: "'reports' has no parameter '\(unknown.name)' (it takes none)")
                }
                let report = try await ReportsCommand.triage([store], keyFile: keyFile) { done, total in
                    job.report("reading reports", done: Int64(done), of: Int64(total))
                }
                return try .json(encoding: report)
            }
            guard let text = call["report"] else {
                throw BadCall(description: "'\(call.endpoint)' needs the parameter 'report': a report's id in the store (/api/reports lists them)")
            }
            guard let id = Int64(text), id > 0 else { throw BadCall(description: "report=\(text): give a report's id, a whole number from 1") }
            let inspection = try await open(id)
            if call.endpoint == "report" {
                if let unknown = call.parameters.first(where: { $0.name != "report" }) {
                    throw BadCall(description: "'report' has no parameter '\(unknown.name)' (it takes: report)")
                }
                return try .json(encoding: try ReportShowCommand.Report(reading: inspection.path, named: inspection.name, keyFile: keyFile))
            }
            let rest = InspectorCall(endpoint: call.endpoint, parameters: call.parameters.filter { $0.name != "report" })
            return await inspection.answer(rest, in: job)
        } catch {
            return LogInspection.response(for: error)
        }
    }

    /// Reading a store's every report, opened with a key, takes a while; replays are long as
    /// over a log.
    func isLong(_ call: InspectorCall) -> Bool {
        call.endpoint == "reports" ? keyFile != nil : LogInspection.endpoints[call.endpoint]?.replays == true
    }

    /// The inspection over report `id`'s file, fetched and opened on its first call.
    private func open(_ id: Int64) async throws -> LogInspection {
        if let file = fetched.file(for: id) { return inspection(id, file: file) }
        guard let bytes = try await CollectorStores.fetch(store, id: id).bytes else { throw NotInStore(description: "\(name): no report \(id) (deleted, or never there: /api/reports lists them)") }
        let keys = try LogOptions.keys(keyFile: keyFile)
        let file = try fetched.add(bytes, id: id) { file in _ = try OpenLogs.keepFile(file, keys: keys) }
        return inspection(id, file: file)
    }

    private func inspection(_ id: Int64, file: String) -> LogInspection {
        LogInspection(path: file, name: "\(name)#\(id)", keyFile: keyFile, skipUndecodable: skipUndecodable, allowDrift: allowDrift)
    }

    /// A report the store does not hold (404).
    struct NotInStore: Error, CustomStringConvertible {
        var description: String
    }
}

/// The reports a ``ReportsInspection`` fetched: each a sealed file, as stored, in a folder of
/// the launch's own (owner-only), kept open by ``OpenLogs``; past
/// ``ReportsInspection/keptReports`` the one opened longest ago is closed and deleted.
private final class FetchedReports: Sendable {
    private let scratch: ReportScratch
    private let files = Mutex<(byID: [Int64: String], order: [Int64])>(([:], []))

    init() throws {
        scratch = try ReportScratch()
    }

    func file(for id: Int64) -> String? {
        files.withLock { $0.byID[id] }
    }

    /// Writes `bytes` as report `id`'s file and opens it (`open`), unless another call did
    /// meanwhile; a file that does not open is deleted, and its error thrown.
    func add(_ bytes: Data, id: Int64, open: (String) throws -> Void) throws -> String {
        try files.withLock { files in
            if let file = files.byID[id] { return file }
            let file = try scratch.write(bytes, id: id)
            do { try open(file) } catch {
                try? FileManager.default.removeItem(atPath: file)
                throw error
            }
            files.byID[id] = file
            files.order.append(id)
            while files.order.count > ReportsInspection.keptReports {
                let oldest = files.order.removeFirst()
                if let gone = files.byID.removeValue(forKey: oldest) {
                    OpenLogs.forget(gone)
                    try? FileManager.default.removeItem(atPath: gone)
                }
            }
            return file
        }
    }
}
