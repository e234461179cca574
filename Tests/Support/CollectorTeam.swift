import Foundation
public import Rewind
public import RewindLog
import RewindTestProcesses
import Testing

/// A team's side of the collector tests: its report keys, a tokens file made by
/// `rewind collect token` (an ingest token for the notes app, and a read token), a store
/// location; and devices whose error actions seal reports into their outboxes.
public struct CollectorTeam: Sendable {
    public static let app = AppIdentity(id: "com.example.notes", version: "1.4")
    public static let reducer = Reducer<[String], String> { notes, note in notes.append(note) }

    public let folder: TemporaryDirectory
    public let publicKey: ReportKey
    public let privateKey: LogKey
    public let tokensFile: String
    /// The app's ingest token, as the app ships it.
    public let ingest: String
    /// The team's read token.
    public let read: String
    /// Where the collector keeps reports: a SQLite file in `folder` unless given.
    public let store: String

    /// - Parameters:
    ///   - store: The collector's store (a SQLite file in `folder` when `nil`).
    ///   - ingestApp: The app the ingest token uploads for.
    public init(store: String? = nil, ingestApp: String = CollectorTeam.app.id) async throws {
        folder = try TemporaryDirectory()
        let generated = try ReportKey.generate(id: "team")
        (publicKey, privateKey) = (generated.publicKey, generated.privateKey)
        tokensFile = folder.file("tokens")
        self.store = store ?? folder.file("reports.sqlite")
        let rewind = builtProduct("rewind")
        let ingest = try await run(rewind, ["collect", "token", "--tokens", tokensFile, "--name", "notes-app", "--ingest", ingestApp])
        let read = try await run(rewind, ["collect", "token", "--tokens", tokensFile, "--name", "team", "--read"])
        try #require(ingest.status == 0 && read.status == 0, "\(ingest.standardError) \(read.standardError)")
        self.ingest = ingest.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        self.read = read.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A device of `app`: `errors` launches, each of which records a note and an error action,
    /// sealing one report into the log's outbox. `padding` random bytes (base64) in the note
    /// make the report that much larger: they do not deflate.
    public func device(_ name: String, errors: Int = 1, app: AppIdentity = CollectorTeam.app, padding: Int = 0) async throws -> ReportOutbox {
        let path = folder.file("\(name).rewind")
        for index in 0..<errors {
            var configuration = RecorderConfiguration<[String], String>()
            configuration.reports = ReportOptions(key: publicKey)
            configuration.reports?.eventsAfterTrigger = 0
            configuration.errorActions = { $0.hasPrefix("error") }
            let recorder = Recorder<[String], String>(log: try EventLog(path: path), app: app, configuration: configuration)
            let store = Store(initialState: [], reducer: Self.reducer, middleware: recorder.middleware)
            var generator = SystemRandomNumberGenerator()
            let pad = Data((0..<padding).map { _ in UInt8.random(in: 0 ... 255, using: &generator) }).base64EncodedString()
            store.dispatch("note \(index) \(pad)")
            store.dispatch("error: sync failed")
            try await recorder.close()
        }
        return ReportOutbox(besideLog: path)
    }

    /// Two collectors on the team's store receive the same `count` reports at once (each report
    /// to both): each is stored once — one answer 201, the other 200 — whatever the store.
    /// Returns how many reports the store ended with, by the team's read token.
    public func twoCollectorsReceiveTheSameReports(count: Int = 4) async throws -> Int {
        let first = try RunningCollector(store: store, tokens: tokensFile)
        let second = try RunningCollector(store: store, tokens: tokensFile)
        let reports = try (try await device("race", errors: count)).reports().map { try Data(contentsOf: $0) }
        let ingest = ingest
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for report in reports {
                for collector in [first, second] {
                    group.addTask {
                        try await collector.request(
                            "POST", "v1/reports", token: ingest, headers: ["Idempotency-Key": ReportDigest.hex(of: report), "Rewind-Install": "one"], body: report
                        ).status
                    }
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == 201 }.count == count && statuses.filter { $0 == 200 }.count == count, "\(statuses)")
        let listed = try await first.request("GET", "v1/reports", token: read)
        return (try JSONSerialization.jsonObject(with: listed.body) as? [Any])?.count ?? -1
    }
}
