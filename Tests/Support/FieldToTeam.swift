import Foundation
public import Rewind
public import RewindExamples
import RewindLog
import RewindReplay
import RewindTestProcesses
import Testing

/// The whole loop from a user's device to a regression test, with the built binaries: the shop
/// app (`rewind-stress field-app`) crashes on its seeded bug; relaunched, it seals the report
/// and its uploader sends it to `rewind collect` on `team.store`; the team's `rewind reports`
/// shows one group, `rewind report fetch` writes the report, which opens with the team's key and
/// shrinks (`rewind shrink --test`) to a fixture and a Swift test — a fixture on which the shop's
/// reducer breaks the invariant, and a fixed reducer does not.
public enum FieldToTeam {
    /// The shop's reducer with the seeded bug fixed: a fixed-amount code whose minimum the
    /// subtotal no longer meets is taken off.
    public static let fixedReducer = Reducer<ShopState, ShopAction> { state, action in
        Shop.reducer(&state, action)
        if let discount = state.cart.discount, case .amountOff = discount.kind, state.cart.subtotal < discount.minimumSubtotal {
            state.cart.discount = nil
            state.cart.discountAmount = 0
            state.cart.total = state.cart.subtotal
        }
    }

    /// The app the field app records as, for the team's ingest token.
    public static let app = "com.example.shop"

    /// Runs the loop; `team`'s ingest token must be for ``app``.
    public static func crashToRegressionTest(team: CollectorTeam) async throws {
        let stress = builtProduct("rewind-stress"), rewind = builtProduct("rewind")
        let folder = team.folder
        let publicKey = folder.file("team.key.pub"), privateKey = folder.file("team.key")
        try (team.publicKey.line + "\n").write(toFile: publicKey, atomically: true, encoding: .utf8)
        try? FileManager.default.removeItem(atPath: privateKey)
        // Owner-only, as `rewind report keygen` writes it: the tools refuse a key others can read.
        _ = FileManager.default.createFile(
            atPath: privateKey, contents: Data("\(team.privateKey.id) \(team.privateKey.bytes.base64EncodedString())\n".utf8), attributes: [.posixPermissions: 0o600]
        )
        let log = folder.file("device-shop.rewind")
        let collector = try RunningCollector(store: team.store, tokens: team.tokensFile)

        // On the device: the crash, then the next launch, which seals the report and sends it.
        let crash = try await run(stress, ["field-app", "--log", log, "--report-key-file", publicKey, "--crash"], environment: ["SWIFT_BACKTRACE": "enable=no"])
        #expect(crash.signaled && crash.standardOutput.contains("negative after"), "\(crash.standardOutput) \(crash.standardError)")
        let launch = try await run(stress, ["field-app", "--log", log, "--report-key-file", publicKey, "--upload", collector.url.absoluteString, "--token", team.ingest])
        #expect(launch.status == 0 && launch.standardOutput.contains("delivered 1 remaining 0 refused 0"), "\(launch.standardOutput) \(launch.standardError)")
        collector.stop()

        // The team: one group, a crash, fetched by its id in the store.
        // What opening adds is cached beside a SQLite store, in the user's cache for PostgreSQL's.
        let cacheHome = folder.file("cache")
        let triage = try await run(rewind, ["reports", team.store, "--key-file", privateKey, "--json"], environment: ["XDG_CACHE_HOME": cacheHome])
        let cached = team.store.hasPrefix("postgres")
            ? ((try? FileManager.default.contentsOfDirectory(atPath: cacheHome + "/rewind")) ?? []).filter { $0.hasPrefix("triage-") }.count == 1
            : FileManager.default.fileExists(atPath: team.store + "-triage.json")
        #expect(cached, "the triage cache is kept")
        #expect(triage.status == 0, "\(triage.standardError)")
        let listing = try #require(try JSONSerialization.jsonObject(with: Data(triage.standardOutput.utf8)) as? [String: Any])
        let groups = try #require(listing["groups"] as? [[String: Any]])
        try #require(groups.count == 1, "\(triage.standardOutput) \(launch.standardOutput) \(launch.standardError)")
        let signature = try #require(groups[0]["signature"] as? [String: Any])
        #expect((signature["reason"] as? [String: Any])?["kind"] as? String == "crash" && signature["crashSite"] is String, "\(signature)")
        let representative = try #require(groups[0]["representative"] as? String)
        let id = try #require(representative.split(separator: "#").last.map(String.init))
        let report = folder.file("fetched.rwreport")
        let fetch = try await run(rewind, ["report", "fetch", team.store, id, "--output", report])
        #expect(fetch.status == 0, "\(fetch.standardError)")
        let details = try FieldReport(contentsOf: report).open(with: LogKeys(others: [team.privateKey])).details
        #expect(details.ending?.kind == .crashed && details.reason.kind == .crash)

        // The same, in the inspector's Reports view over the store: one group, whose report opens
        // with the team's key and breaks the invariant at the seq the live app broke.
        let inspector = try ServedInspector([team.store, "--reports", "--key-file", privateKey], in: folder.path, environment: ["XDG_CACHE_HOME": cacheHome])
        let served = try await inspector.get("/api/reports", token: inspector.token)
        let servedGroups = try #require(try JSONSerialization.jsonObject(with: served.body) as? [String: Any])["groups"] as? [[String: Any]]
        #expect(served.status == 200 && servedGroups?.count == 1 && servedGroups?.first?["representative"] as? String == representative, "\(servedGroups ?? [])")
        let bisect = try await inspector.get("/api/bisect?report=\(id)&invariant=non-negative-total", token: inspector.token)
        let onFile = try await run(rewind, ["bisect", report, "--key-file", privateKey, "--invariant", "non-negative-total", "--json"])
        func seq(_ json: Data) -> Int? { (try? JSONSerialization.jsonObject(with: json) as? [String: Any])?["seq"] as? Int }
        #expect(bisect.status == 200 && seq(bisect.body) != nil && seq(bisect.body) == seq(Data(onFile.standardOutput.utf8)), "\(String(decoding: bisect.body, as: UTF8.self))")
        // And asked of the group's every report at once, straight from the store.
        let fleet = try await run(rewind, [
            "bisect", team.store, "--all-sessions", "--reports", "--like-report", id, "--key-file", privateKey, "--invariant", "non-negative-total", "--json",
        ], environment: ["XDG_CACHE_HOME": cacheHome])
        let entries = (try? JSONSerialization.jsonObject(with: Data(fleet.standardOutput.utf8)) as? [String: Any])?["entries"] as? [[String: Any]]
        #expect(fleet.status == 0 && entries?.count == 1 && entries?.first?["seq"] as? Int == seq(Data(onFile.standardOutput.utf8)), "\(fleet.standardOutput) \(fleet.standardError)")

        // To a regression test: the fixture and the Swift test that replays it.
        let shrink = try await run(
            rewind, ["shrink", report, "--key-file", privateKey, "--invariant", "non-negative-total", "-o", "fixture.rewind", "--test", "ShopTests.swift"],
            in: folder.path
        )
        #expect(shrink.status == 0, "\(shrink.standardError)")
        let test = try String(contentsOfFile: folder.file("ShopTests.swift"), encoding: .utf8)
        #expect(test.contains("assertInvariant(\"non-negative-total\""), "\(test)")
        let fixture = try EventLog(path: folder.file("fixture.rewind"), mode: .readOnly)
        let broken: (ShopState) -> Bool = { $0.cart.total < 0 }
        let buggy = try Replayer(log: fixture, reducer: Shop.reducer).bisect(where: broken)
        let fixed = try Replayer(log: fixture, reducer: Self.fixedReducer).bisect(where: broken)
        guard case .found = buggy else {
            Issue.record("the shop's reducer does not break the invariant on the fixture: \(buggy)")
            return
        }
        if case .found = fixed { Issue.record("the fixed reducer breaks the invariant on the fixture too: \(fixed)") }
        #expect(try fixture.sessions().first?.eventCount ?? 0 <= 10, "shrunk to a handful of actions")
    }
}
