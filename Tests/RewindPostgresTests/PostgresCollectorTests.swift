#if Collector
import Foundation
import RewindLog
import RewindPostgres
import RewindTestSupport
import RewindUpload
import Testing

/// `rewind collect --store postgres://…` (the built binary) with the uploader: the same
/// promises as on the SQLite default, and what only a shared server store meets — two
/// collectors on one store, and the store restarted under uploads.
@Suite("Collector on PostgreSQL", .enabled(if: PostgresTestServer.enabled), .serialized)
struct PostgresCollectorTests {
    @Test("end to end: uploaded once each, grouped by rewind reports over the URL, fetched as sent, opened with the team's key")
    func endToEnd() async throws {
        try await PostgresTestServer.withDatabase { location in
            let team = try await CollectorTeam(store: PushCommandTests.url(location))
            let collector = try RunningCollector(store: team.store, tokens: team.tokensFile)
            let outboxes = [try await team.device("phone"), try await team.device("tablet")]
            let sent = try outboxes.map { try Data(contentsOf: try #require($0.reports().first)) }
            for outbox in outboxes {
                let result = await ReportUploader(outbox: outbox, endpoint: collector.url, token: team.ingest).send()
                #expect(result.delivered == 1 && outbox.reports().isEmpty, "\(result)")
            }
            collector.stop()
            let rewind = builtProduct("rewind")
            let triage = try await run(rewind, ["reports", team.store, "--json"])
            #expect(triage.status == 0, "\(triage.standardError)")
            let report = try JSONSerialization.jsonObject(with: Data(triage.standardOutput.utf8)) as? [String: Any]
            let groups = try #require(report?["groups"] as? [[String: Any]])
            #expect(groups.count == 1 && groups.first?["count"] as? Int == 2, "\(triage.standardOutput)")
            let stored = try await PostgresReportStore.open(location)
            let ids = try await stored.allReports().map(\.id)
            await stored.close()
            try #require(ids.count == 2)
            let file = team.folder.file("fetched.rwreport")
            let fetch = try await run(rewind, ["report", "fetch", team.store, "\(ids[0])", "--output", file])
            #expect(fetch.status == 0, "\(fetch.standardError)")
            let fetched = try Data(contentsOf: URL(fileURLWithPath: file))
            #expect(sent.contains(fetched))
            let details = try FieldReport(contentsOf: file).open(with: LogKeys(others: [team.privateKey])).details
            #expect(details.reason.kind == .errorAction)
        }
    }

    @Test("from a device to a regression test, with the reports in PostgreSQL")
    func crashToRegressionTest() async throws {
        try await PostgresTestServer.withDatabase { location in
            try await FieldToTeam.crashToRegressionTest(team: try await CollectorTeam(store: PushCommandTests.url(location), ingestApp: FieldToTeam.app))
        }
    }

    @Test("two collectors on one store receiving the same reports at once store each once")
    func twoCollectors() async throws {
        try await PostgresTestServer.withDatabase { location in
            let stored = try await CollectorTeam(store: PushCommandTests.url(location)).twoCollectorsReceiveTheSameReports(count: 4)
            #expect(stored == 4)
        }
    }

    @Test("a collector that cannot listen closes its store and fails with a clear error, not a trap")
    func cannotListen() async throws {
        try await PostgresTestServer.withDatabase { location in
            let team = try await CollectorTeam(store: PushCommandTests.url(location))
            let first = try RunningCollector(store: team.store, tokens: team.tokensFile)
            defer { first.stop() }
            // The store opens (its connections with it), then the server cannot bind: the run's
            // error path must close the store as its normal end does. Without that, postgres-nio
            // traps (a debug build) on connections released unclosed — unless the process exits
            // before they are released, which it did in about one run of five: three runs.
            for _ in 1...3 {
                let second = try await run(
                    builtProduct("rewind"), ["collect", "--store", team.store, "--tokens", team.tokensFile, "--listen", "127.0.0.1:\(first.port)"],
                    environment: ["SWIFT_BACKTRACE": "enable=no"], timeout: 120
                )
                #expect(!second.signaled && second.status != 0, "\(second.status) signaled \(second.signaled): \(second.standardError.suffix(2_000))")
                #expect(second.standardError.contains("cannot listen on 127.0.0.1:\(first.port): the port is taken"), "\(second.standardError.suffix(2_000))")
            }
            // The first collector still answers.
            let health = try await first.request("GET", "/healthz", token: nil)
            #expect(health.status == 200)
        }
    }

    @Test("the store restarted under uploads: the uploader retries, and each report is stored exactly once")
    func storeRestarted() async throws {
        let server = try PrivatePostgresServer.start()
        defer { server.stop() }
        // Its own password, in the URL: PGPASSWORD is the suite's server's, shared by every test.
        let team = try await CollectorTeam(store: PushCommandTests.url(server.location, withPassword: true))
        let collector = try RunningCollector(store: team.store, tokens: team.tokensFile, extra: ["--uploads-per-install-per-hour", "1000"])
        let outbox = try await team.device("phone", errors: 12)
        let digests = Set(try outbox.reports().map { ReportDigest.hex(of: try Data(contentsOf: $0)) })
        try #require(digests.count == 12)
        let uploader = ReportUploader(outbox: outbox, endpoint: collector.url, token: team.ingest)
        // The store stopped: the collector answers 5xx, the uploader keeps every report and waits.
        server.stop()
        let refused = await uploader.send()
        #expect(refused.delivered == 0 && refused.remaining == 12 && refused.lastFailure?.hasPrefix("HTTP 5") == true, "\(refused)")
        try #require(server.resume())
        // Then restarted while the uploader sends: what fails waits and goes again.
        let restart = Task.detached { server.restart() }
        var now = Date().addingTimeInterval(3600), passes = 0
        while !outbox.reports().isEmpty && passes < 50 {
            let result = await uploader.send(now: now)
            now = max(now, result.nextAttempt ?? now).addingTimeInterval(1)
            passes += 1
            if result.delivered == 0 { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(await restart.value)
        #expect(outbox.reports().isEmpty, "left after \(passes) passes: \(outbox.reports().count)")
        let stored = try await PostgresReportStore.open(server.location)
        let rows = try await stored.allReports()
        await stored.close()
        #expect(rows.count == 12 && Set(rows.map(\.digest)) == digests)
        collector.stop()
    }
}
#endif
