import Foundation
import RewindExamples
import RewindLog
@testable import RewindPostgres
import RewindTestSupport
import Testing

/// `rewind serve postgres://…?log=…`: the inspector over a store's log, read in place, answers
/// every call as over the log's file — and shows what is pushed while it runs.
@Suite("rewind serve on a store", .enabled(if: PostgresTestServer.enabled))
struct StoreInspectorTests {
    /// `GET /api/CALL` of `server`: its status and body, with `path` (the log as the server
    /// names it) made `LOG` and the store's sizes left out.
    static func get(_ call: String, of server: ServedInspector, naming path: String) async throws -> (status: Int, body: String) {
        let (status, data, _) = try await server.get("/api/" + call, token: server.token)
        var body = String(decoding: data, as: UTF8.self).replacingOccurrences(of: path, with: "LOG")
        body.replace(#/"(bytesOnDisk|payloadBytes|snapshotBytes)":[0-9]+/#) { match in "\"\(match.1)\":0" }
        return (status, body)
    }

    /// One call of every endpoint, with parameters that make it do its work.
    static let calls = [
        "overview", "head", "events?limit=50", "events?before=30", "events?case=cart.*&limit=20", "event?seq=12", "sessions", "snapshots",
        "stats?buckets=10", "check", "state?at=12", "state?at=99999", "diff?at=12", "diff?from=3&to=40", "bisect?invariant=non-negative-total",
        "replay?skip=11&through=12", "verify", "shrink?invariant=non-negative-total",
    ]

    @Test("every inspector call answers on the store's log as on its file; a session pushed while it serves is seen")
    func sameAnswers() async throws {
        let folder = try TemporaryDirectory()
        let log = try await PushCommandTests.demoLog(actions: 300, in: folder)
        try await PostgresTestServer.withDatabase { location in
            let store = try await PostgresLog.open(location)
            _ = try await store.push(try EventLog(path: log, mode: .readOnly))
            await store.close()
            let logID = try #require(try EventLog(path: log, mode: .readOnly).identity()).uuidString.lowercased()
            let url = PushCommandTests.url(location) + "&log=" + logID
            let name = try PostgresLocation(parsing: url).description

            let onFile = try ServedInspector([log], in: folder.path), onStore = try ServedInspector([url], in: folder.path)
            for call in Self.calls {
                let (file, stored) = (try await Self.get(call, of: onFile, naming: log), try await Self.get(call, of: onStore, naming: name))
                #expect(stored.status == file.status, "\(call): \(stored.body)")
                #expect(!stored.body.contains(location.password ?? "no password"), "\(call)")
                guard call.hasPrefix("shrink") else {
                    #expect(stored.body == file.body, "\(call)")
                    continue
                }
                // A shrunk fixture is a new log (its own identity and times), named after the
                // log it came from: the same shrinking, the same actions kept.
                let reports = try [file, stored].map { answer in
                    let object = try #require(try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])
                    var report = try #require(object["report"] as? [String: Any])
                    (report["output"], report["seconds"]) = (nil, nil)
                    #expect((object["fixture"] as? String)?.isEmpty == false && (object["test"] as? String)?.contains("assertInvariant") == true)
                    return String(decoding: try JSONSerialization.data(withJSONObject: report, options: .sortedKeys), as: UTF8.self)
                }
                #expect(reports[0] == reports[1])
                #expect(stored.body.contains("\"fixtureName\":\"store-non-negative-total.rewind\""), "\(stored.body.prefix(300))")
            }

            // Another session recorded on the device and pushed: the running inspector sees it.
            let before = try await Self.get("head", of: onStore, naming: name).body
            _ = try await recordSession(
                into: try EventLog(path: log), app: AppIdentity(id: "com.example.shop"), initialState: ShopState(), reducer: Shop.reducer,
                effects: Shop.effects(environment: .simulated), user: Shopper(seed: 5), actions: 50
            )
            let pushed = try await run(builtProduct("rewind"), ["push", log, PushCommandTests.url(location)], in: folder.path)
            #expect(pushed.status == 0, "\(pushed.standardError)")
            let after = try await Self.get("head", of: onStore, naming: name).body, fileAfter = try await Self.get("head", of: onFile, naming: log).body
            #expect(after != before && after == fileAfter, "\(after)")
        }
    }
}
