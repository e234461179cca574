#if Collector
import Foundation
import Rewind
import RewindLog
import RewindTestSupport
import RewindUpload
import Testing

/// The uploader in an app and `rewind collect` (the built binary) on loopback: reports go from
/// a device's outbox to the team's store once each, through retries, refusals and the kill
/// switch, and the team lists, groups and fetches them.
@Suite("Collector and uploader", .serialized)
struct CollectorTests {
    typealias Team = CollectorTeam
    static let app = CollectorTeam.app
    static let reducer = CollectorTeam.reducer

    @Test("end to end: the uploader sends a device's report once; the team lists, groups and fetches it as sent; it opens with the team's key")
    func endToEnd() async throws {
        let team = try await Team()
        let collector = try RunningCollector(store: team.store, tokens: team.tokensFile)
        let outbox = try await team.device("phone")
        let sent = try Data(contentsOf: try #require(outbox.reports().first))
        let uploader = ReportUploader(outbox: outbox, endpoint: collector.url, token: team.ingest)
        let result = await uploader.send()
        #expect(result.delivered == 1 && result.remaining == 0 && result.refused.isEmpty, "\(result)")
        #expect(outbox.reports().isEmpty)
        // The same report again (a retry after a lost answer): stored once.
        let again = try await collector.request(
            "POST", "v1/reports", token: team.ingest, headers: ["Idempotency-Key": ReportDigest.hex(of: sent), "Rewind-Install": uploader.installID], body: sent
        )
        #expect(again.status == 200 && String(decoding: again.body, as: UTF8.self).contains("duplicate"))
        // The team's listing (a read token; the ingest token cannot read).
        #expect(try await collector.request("GET", "v1/reports", token: team.ingest).status == 401)
        let listed = try await collector.request("GET", "v1/reports", token: team.read)
        let entries = try JSONDecoder().decode([CollectedReport].self, from: listed.body)
        try #require(entries.count == 1)
        #expect(entries[0].header.app == Self.app && entries[0].install == uploader.installID && entries[0].token == "notes-app")
        let fetched = try await collector.request("GET", "v1/reports/\(entries[0].id)", token: team.read)
        #expect(fetched.status == 200 && fetched.body == sent)
        collector.stop()
        // Triage over the store, and the fetched file opening with the team's key.
        let rewind = builtProduct("rewind")
        let triage = try await run(rewind, ["reports", team.store, "--json"])
        #expect(triage.status == 0, "\(triage.standardError)")
        let groups = try JSONSerialization.jsonObject(with: Data(triage.standardOutput.utf8)) as? [String: Any]
        let listedGroups = try #require(groups?["groups"] as? [[String: Any]])
        #expect(listedGroups.count == 1 && listedGroups.first?["count"] as? Int == 1)
        let file = team.folder.file("fetched.rwreport")
        let fetch = try await run(rewind, ["report", "fetch", team.store, "\(entries[0].id)", "--output", file])
        #expect(fetch.status == 0, "\(fetch.standardError)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == sent)
        let details = try FieldReport(contentsOf: file).open(with: LogKeys(others: [team.privateKey])).details
        #expect(details.reason.kind == .errorAction)
        // Never overwritten.
        #expect(try await run(rewind, ["report", "fetch", team.store, "\(entries[0].id)", "--output", file]).status != 0)
    }

    @Test("from a device to a regression test: the app crashes, relaunches and uploads; the team triages, fetches, and shrinks the report to a failing test")
    func crashToRegressionTest() async throws {
        try await FieldToTeam.crashToRegressionTest(team: try await Team(ingestApp: FieldToTeam.app))
    }

    @Test("hostile uploads: each a clear 4xx, nothing stored, the server unaffected")
    func hostile() async throws {
        let team = try await Team()
        let collector = try RunningCollector(store: team.store, tokens: team.tokensFile, extra: ["--max-report-bytes", "200000"])
        let outbox = try await team.device("phone")
        let report = try Data(contentsOf: try #require(outbox.reports().first))
        func post(_ body: Data, token: String? = nil, key: String? = nil, install: String? = "install-1") async throws -> Int {
            var headers: [String: String] = [:]
            if let key = key ?? Optional(ReportDigest.hex(of: body)) { headers["Idempotency-Key"] = key }
            if let install { headers["Rewind-Install"] = install }
            return try await collector.request("POST", "v1/reports", token: token ?? team.ingest, headers: headers, body: body).status
        }
        #expect(try await collector.request("POST", "v1/reports", token: nil, body: report).status == 401)
        #expect(try await post(report, token: "rwi_not-a-token") == 401)
        #expect(try await post(report, token: team.read) == 401)
        #expect(try await post(Data("not a report".utf8)) == 400)
        var truncated = report
        truncated.removeLast(report.count / 2)
        #expect(try await post(Data(report.prefix(30))) == 400)
        #expect(try await post(Data(repeating: 0x41, count: 300_000)) == 413)
        #expect(try await post(report, key: "") == 400)
        #expect(try await post(report, key: "../../etc") == 400)
        #expect(try await post(report, install: nil) == 400)
        // A report of another app, sealed with the app's public key as anyone can: refused.
        let other = try await team.device("other", app: AppIdentity(id: "com.example.other"))
        let forged = try Data(contentsOf: try #require(other.reports().first))
        #expect(try await post(forged) == 403)
        // The real one is taken; its key with other bytes is refused, and does not replace it.
        #expect(try await post(report) == 201)
        #expect(try await post(truncated, key: ReportDigest.hex(of: report)) == 409)
        let listed = try await collector.request("GET", "v1/reports", token: team.read)
        let entries = try JSONDecoder().decode([CollectedReport].self, from: listed.body)
        #expect(entries.count == 1 && entries.first?.digest == ReportDigest.hex(of: report))
        #expect(try await collector.request("GET", "healthz", token: nil).status == 200)
    }

    @Test("a client trickling its headers is cut off at the request deadline; others are served meanwhile")
    func trickle() async throws {
        let team = try await Team()
        let collector = try RunningCollector(store: team.store, tokens: team.tokensFile, extra: ["--request-deadline", "2"])
        let began = ContinuousClock.now
        let socket = try LoopbackConnection(port: collector.port)
        var closed = false
        // A header byte every 200 ms: never idle, never done.
        for byte in "POST /v1/reports HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8 + Array(repeating: UInt8(ascii: "a"), count: 200) {
            if !socket.send([byte]) { closed = true; break }
            try await Task.sleep(for: .milliseconds(200))
            if ContinuousClock.now - began > .seconds(15) { break }
        }
        #expect(closed, "the collector kept a trickling connection open for 15 s")
        #expect(ContinuousClock.now - began < .seconds(10))
        #expect(try await collector.request("GET", "healthz", token: nil).status == 200)
    }

    @Test("the kill switch: a 410 stops the uploader and keeps its reports; accepted again, they go")
    func killSwitch() async throws {
        let team = try await Team()
        let collector = try RunningCollector(store: team.store, tokens: team.tokensFile)
        #expect(try await collector.request("PUT", "v1/uploads", token: team.ingest, body: Data("stop".utf8)).status == 401)
        // A second collector on the same store honours the switch flipped through the first, within
        // its second of caching.
        let other = try RunningCollector(store: team.store, tokens: team.tokensFile)
        #expect(try await other.request("GET", "healthz", token: nil).status == 200)
        #expect(try await collector.request("PUT", "v1/uploads", token: team.read, body: Data("stop".utf8)).status == 200)
        let outbox = try await team.device("phone")
        let probe = try Data(contentsOf: try #require(outbox.reports().first))
        let flipped = ContinuousClock.now
        var answer = 0
        // When each probe was sent, and its answer: a probe sent more than a second after the
        // switch flipped (and a margin) must be refused, however long the answers take to come
        // back on a loaded machine.
        var probes: [(sent: Duration, answer: Int)] = []
        repeat {
            let sent = ContinuousClock.now - flipped
            answer = try await other.request(
                "POST", "v1/reports", token: team.ingest, headers: ["Idempotency-Key": "probe", "Rewind-Install": "probe"], body: probe
            ).status
            probes.append((sent, answer))
            if answer != 410 { try await Task.sleep(for: .milliseconds(100)) }
        } while answer != 410 && ContinuousClock.now - flipped < .seconds(5)
        #expect(answer == 410, "the other collector answered \(answer)")
        #expect(!probes.contains { $0.sent > .milliseconds(1_300) && $0.answer != 410 }, "accepted after the switch had a second to spread: \(probes)")
        other.stop()
        let uploader = ReportUploader(outbox: outbox, endpoint: collector.url, token: team.ingest)
        let stopped = await uploader.send()
        #expect(stopped.stopped && stopped.delivered == 0 && outbox.reports().count == 1)
        // A relaunch honours the stop too, without asking the collector.
        let relaunched = ReportUploader(outbox: outbox, endpoint: collector.url, token: team.ingest)
        #expect(await relaunched.send().stopped)
        #expect(try await collector.request("PUT", "v1/uploads", token: team.read, body: Data("accept".utf8)).status == 200)
        let later = await relaunched.send(now: Date(timeIntervalSinceNow: 2 * 86_400))
        #expect(later.delivered == 1 && outbox.reports().isEmpty, "\(later)")
    }

    @Test("the collector down: the uploader keeps the reports and backs off; restarted, each is stored exactly once")
    func serverDown() async throws {
        let team = try await Team()
        let outbox = try await team.device("phone", errors: 3)
        try #require(outbox.reports().count == 3)
        // A port with nothing on it: no answer.
        var collector: RunningCollector? = try RunningCollector(store: team.store, tokens: team.tokensFile)
        let port = collector!.port
        collector?.kill()
        let uploader = ReportUploader(outbox: outbox, endpoint: URL(string: "http://127.0.0.1:\(port)")!, token: team.ingest)
        let began = Date()
        let failed = await uploader.send(now: began)
        #expect(failed.delivered == 0 && failed.remaining == 3 && failed.lastFailure != nil)
        let wait = try #require(failed.nextAttempt).timeIntervalSince(began)
        #expect(wait >= 14.999 && wait <= 30.001, "the first wait is 15 to 30 s: \(wait)")
        // Before the wait is over, a pass sends nothing (a relaunch included).
        #expect(await ReportUploader(outbox: outbox, endpoint: uploader.endpoint, token: team.ingest).send().delivered == 0)
        collector = try RunningCollector(store: team.store, tokens: team.tokensFile, port: port)
        let sent = await uploader.send(now: Date(timeIntervalSinceNow: 60))
        #expect(sent.delivered == 3 && outbox.reports().isEmpty, "\(sent)")
        let entries = try await ReportStore(path: team.store).reports()
        #expect(entries.count == 3 && Set(entries.map(\.digest)).count == 3)
    }

    @Test("the collector killed mid-upload and restarted: nothing is lost, and each report is stored exactly once")
    func killedMidUpload() async throws {
        let team = try await Team()
        let count = 16
        let outbox = try await team.device("phone", errors: count, padding: 256 << 10)
        var collector = try RunningCollector(store: team.store, tokens: team.tokensFile)
        let port = collector.port
        let uploader = ReportUploader(outbox: outbox, endpoint: collector.url, token: team.ingest)
        let sending = Task { await uploader.send() }
        // Killed (SIGKILL) once two reports are in: the uploader is sending the next ones.
        func stored() async -> Int {
            guard let store = try? ReportStore(path: team.store) else { return 0 }
            let count = (try? await store.allReports().count) ?? 0
            await store.close()
            return count
        }
        let began = ContinuousClock.now
        while await stored() < 2, ContinuousClock.now - began < .seconds(30) { try await Task.sleep(for: .milliseconds(2)) }
        collector.kill()
        let first = await sending.value
        // Sent one after the other: the first's answer came before the second was sent, while the
        // second may be stored with its answer lost in the kill.
        #expect(first.delivered >= 1 && first.delivered < count && first.lastFailure != nil, "\(first)")
        // Restarted: the rest goes, a report stored before its answer was lost is answered as stored.
        collector = try RunningCollector(store: team.store, tokens: team.tokensFile, port: port)
        let rest = await uploader.send(now: Date().addingTimeInterval(3600))
        #expect(rest.remaining == 0 && outbox.reports().isEmpty && first.delivered + rest.delivered == count, "\(rest)")
        collector.stop()
        let kept = try await ReportStore(path: team.store).allReports()
        #expect(kept.count == count && Set(kept.map(\.digest)).count == count)
    }

    @Test("two collectors on one store receiving the same reports at once store each once")
    func twoCollectors() async throws {
        #expect(try await Team().twoCollectorsReceiveTheSameReports(count: 4) == 4)
    }

    @Test("limits and tokens: an install past its hourly uploads gets 429 with Retry-After and backs off; a revoked token is refused")
    func limitsAndRevocation() async throws {
        let team = try await Team()
        let collector = try RunningCollector(store: team.store, tokens: team.tokensFile, extra: ["--uploads-per-install-per-hour", "2"])
        let outbox = try await team.device("phone", errors: 3)
        let uploader = ReportUploader(outbox: outbox, endpoint: collector.url, token: team.ingest)
        let result = await uploader.send()
        #expect(result.delivered == 2 && result.remaining == 1 && result.lastFailure?.contains("429") == true, "\(result)")
        #expect(try #require(result.nextAttempt).timeIntervalSinceNow > 60, "Retry-After (the hour's end) is honoured")
        // Revoked by the team: every later upload with it is refused, and the report is kept.
        #expect(try await collector.request("POST", "v1/tokens/notes-app/revoke", token: team.read).status == 200)
        let other = ReportUploader(outbox: try await team.device("tablet"), endpoint: collector.url, token: team.ingest)
        let refused = await other.send()
        #expect(refused.delivered == 0 && refused.remaining == 1 && refused.lastFailure?.contains("401") == true, "\(refused)")
    }

    @Test("rewind collect refuses what it cannot serve: no tokens, a bad listen address, a log given as its store; token names are unique")
    func commandErrors() async throws {
        let team = try await Team()
        let rewind = builtProduct("rewind")
        let empty = team.folder.file("empty-tokens")
        _ = FileManager.default.createFile(atPath: empty, contents: Data("# nothing\n".utf8))
        let noTokens = try await run(rewind, ["collect", "--store", team.store, "--tokens", empty])
        #expect(noTokens.status != 0 && noTokens.standardError.contains("no tokens"))
        let badListen = try await run(rewind, ["collect", "--store", team.store, "--tokens", team.tokensFile, "--listen", "nowhere"])
        #expect(badListen.status != 0 && badListen.standardError.contains("HOST:PORT"))
        // Somewhere it cannot listen: a port another collector holds, an address not this
        // machine's (TEST-NET-1). Each a sentence saying where and what to do, and exit 2.
        let holder = try RunningCollector(store: team.store, tokens: team.tokensFile)
        let taken = try await run(rewind, ["collect", "--store", team.store, "--tokens", team.tokensFile, "--listen", "127.0.0.1:\(holder.port)"])
        #expect(!taken.signaled && taken.status == 2, "\(taken.status): \(taken.standardError)")
        #expect(taken.standardError.contains("cannot listen on 127.0.0.1:\(holder.port): the port is taken"), "\(taken.standardError)")
        holder.stop()
        let foreign = try await run(rewind, ["collect", "--store", team.store, "--tokens", team.tokensFile, "--listen", "192.0.2.1:8417"])
        #expect(!foreign.signaled && foreign.status == 2, "\(foreign.status): \(foreign.standardError)")
        #expect(foreign.standardError.contains("cannot listen on 192.0.2.1:8417: 192.0.2.1 is not an address of this machine"), "\(foreign.standardError)")
        let log = team.folder.file("a.rewind")
        _ = try EventLog(path: log).beginSession(app: Self.app, initialState: 0)
        let logAsStore = try await run(rewind, ["collect", "--store", log, "--tokens", team.tokensFile])
        #expect(logAsStore.status != 0 && logAsStore.standardError.contains("\(log): not a collector's report store: it is a Rewind log"), "\(logAsStore.standardError)")
        let twice = try await run(rewind, ["collect", "token", "--tokens", team.tokensFile, "--name", "team", "--read"])
        #expect(twice.status != 0 && twice.standardError.contains("has a token of that name"))
        // The file holds digests only: neither token appears in it.
        let file = try String(contentsOfFile: team.tokensFile, encoding: .utf8)
        #expect(!file.contains(team.ingest) && !file.contains(team.read))
    }
}
#endif

#if Collector
/// The team's endpoints and the collector's other limits, over HTTP.
@Suite("Collector's team endpoints and limits", .serialized)
struct CollectorTeamEndpointTests {
    typealias Team = CollectorTeam

    /// Uploads each of `outbox`'s reports as the uploader would, from `install`; the statuses.
    static func upload(_ outbox: ReportOutbox, to collector: RunningCollector, token: String, install: String) async throws -> [Int] {
        var statuses: [Int] = []
        for report in outbox.reports() {
            let bytes = try Data(contentsOf: report)
            statuses.append(try await collector.request(
                "POST", "v1/reports", token: token, headers: ["Idempotency-Key": ReportDigest.hex(of: bytes), "Rewind-Install": install], body: bytes
            ).status)
        }
        return statuses
    }

    @Test("delete, erase an install, retention and paging over HTTP need the read token and do what they say")
    func teamEndpoints() async throws {
        let team = try await Team()
        let collector = try RunningCollector(store: team.store, tokens: team.tokensFile)
        #expect(try await Self.upload(try await team.device("a", errors: 3), to: collector, token: team.ingest, install: "alice") == [201, 201, 201])
        #expect(try await Self.upload(try await team.device("b", errors: 2), to: collector, token: team.ingest, install: "bob") == [201, 201])
        func listed(_ query: String = "") async throws -> [CollectedReport] {
            let answer = try await collector.request("GET", "v1/reports" + query, token: team.read)
            #expect(answer.status == 200)
            return try JSONDecoder().decode([CollectedReport].self, from: answer.body)
        }
        let all = try await listed()
        #expect(all.count == 5 && all.map(\.id) == all.map(\.id).sorted(by: >))
        // Paging: two at a time, by id.
        let page = try await listed("?limit=2&before=\(all[1].id)")
        #expect(page.map(\.id) == Array(all[2...3].map(\.id)))
        // Every team endpoint refuses the ingest token and no token.
        for (method, path) in [("GET", "v1/reports"), ("GET", "v1/reports/\(all[0].id)"), ("DELETE", "v1/reports/\(all[0].id)"),
                               ("DELETE", "v1/installs/alice/reports"), ("POST", "v1/retention?app=com.example.notes&days=0"), ("POST", "v1/tokens/team/revoke")] {
            #expect(try await collector.request(method, path, token: team.ingest).status == 401, "\(method) \(path)")
            #expect(try await collector.request(method, path, token: nil).status == 401, "\(method) \(path)")
        }
        // The oldest (one of alice's) deleted.
        let oldest = try #require(all.last)
        #expect(try await collector.request("DELETE", "v1/reports/\(oldest.id)", token: team.read).status == 200)
        #expect(try await collector.request("DELETE", "v1/reports/\(oldest.id)", token: team.read).status == 404)
        #expect(try await collector.request("GET", "v1/reports/\(oldest.id)", token: team.read).status == 404)
        let alice = try await listed().filter { $0.install == "alice" }.count
        let erased = try await collector.request("DELETE", "v1/installs/alice/reports", token: team.read)
        #expect(erased.status == 200 && String(decoding: erased.body, as: UTF8.self).contains("\"reports\":\"\(alice)\""))
        #expect(try await listed().allSatisfy { $0.install == "bob" })
        // Retention by size: at most the newest report's bytes keeps it alone (bob's other goes).
        let size = try #require(try await listed().first?.size)
        let retention = try await collector.request("POST", "v1/retention?app=com.example.notes&bytes=\(size)", token: team.read)
        #expect(retention.status == 200 && String(decoding: retention.body, as: UTF8.self).contains("\"deleted\":\"1\""), "\(String(decoding: retention.body, as: UTF8.self))")
        #expect(try await listed().count == 1)
        #expect(try await collector.request("POST", "v1/retention", token: team.read).status == 400)
        for query in ["app=com.example.notes", "app=com.example.notes&days=0", "app=com.example.notes&days=-1", "app=com.example.notes&bytes=-5"] {
            #expect(try await collector.request("POST", "v1/retention?" + query, token: team.read).status == 400, "\(query)")
        }
        #expect(try await listed().count == 1, "a refused retention deletes nothing")
    }

    @Test("an app at its storage cap gets 507 with Retry-After, a retry of a stored report still 200; an address past its requests gets 429")
    func storageCapAndAddressLimit() async throws {
        let team = try await Team()
        let outbox = try await team.device("phone", errors: 3)
        let size = try Data(contentsOf: try #require(outbox.reports().first)).count
        let capped = try RunningCollector(store: team.store, tokens: team.tokensFile, extra: ["--max-app-bytes", "\(size * 2 + size / 2)"])
        #expect(try await Self.upload(outbox, to: capped, token: team.ingest, install: "one") == [201, 201, 507])
        // At the cap, a retry of a report stored before is still answered as stored.
        let first = try Data(contentsOf: try #require(outbox.reports().first))
        #expect(try await capped.request(
            "POST", "v1/reports", token: team.ingest, headers: ["Idempotency-Key": ReportDigest.hex(of: first), "Rewind-Install": "one"], body: first
        ).status == 200)
        capped.stop()
        let limited = try RunningCollector(store: team.folder.file("other.sqlite"), tokens: team.tokensFile, extra: ["--requests-per-address-per-minute", "3"])
        var statuses: [Int] = []
        for _ in 0..<5 { statuses.append(try await limited.request("GET", "healthz", token: nil).status) }
        #expect(statuses == [200, 200, 200, 429, 429])
    }

    @Test("a full disk: the upload is answered 5xx with Retry-After and nothing is stored; with room again, it is stored once and the file is whole")
    func fullDisk() async throws {
        let team = try await Team()
        let outbox = try await team.device("phone", errors: 3, padding: 48 << 10)
        // The store made, and one report taken, with room; then a limit below a report's size.
        var collector = try RunningCollector(store: team.store, tokens: team.tokensFile)
        let first = try #require(outbox.reports().first)
        let bytes = try Data(contentsOf: first)
        #expect(try await collector.request(
            "POST", "v1/reports", token: team.ingest, headers: ["Idempotency-Key": ReportDigest.hex(of: bytes), "Rewind-Install": "one"], body: bytes
        ).status == 201)
        collector.stop()
        outbox.delivered(first)
        // 40 KiB a file: room for SQLite's shared-memory file (32 KiB), not for a report's pages
        // in the write-ahead log (empty after the clean stop).
        collector = try RunningCollector(store: team.store, tokens: team.tokensFile, fileSizeLimit: 40)
        let uploader = ReportUploader(outbox: outbox, endpoint: collector.url, token: team.ingest)
        let began = Date()
        let full = await uploader.send(now: began)
        // SQLite meets the limit as a failed write (EFBIG), not ENOSPC's "full": 503, not 507.
        #expect(full.delivered == 0 && full.remaining == 2 && full.lastFailure?.contains("HTTP 50") == true, "\(full)")
        // The wait counts from the pass's start (a loaded machine may take seconds over the pass);
        // 30 s less a rounding of the dates' two epochs.
        #expect(try #require(full.nextAttempt).timeIntervalSince(began) >= 29.999, "Retry-After is honoured: \(full)")
        #expect(try await collector.request("GET", "healthz", token: nil).status == 200)
        collector.stop()
        collector = try RunningCollector(store: team.store, tokens: team.tokensFile)
        let later = await ReportUploader(outbox: outbox, endpoint: collector.url, token: team.ingest).send(now: Date().addingTimeInterval(3600))
        #expect(later.delivered == 2 && outbox.reports().isEmpty, "\(later)")
        collector.stop()
        let stored = try await ReportStore(path: team.store).allReports()
        #expect(stored.count == 3 && Set(stored.map(\.digest)).count == 3)
        let check = try await run("/usr/bin/env", ["sqlite3", team.store, "PRAGMA integrity_check"])
        #expect(check.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "ok", "\(check)")
    }

    /// Whether this process may mount a tmpfs (root on Linux): what a really full disk needs.
    static let canMountTmpfs: Bool = {
        guard let folder = try? TemporaryDirectory() else { return false }
        guard (try? runBlocking("/usr/bin/env", ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", folder.path]))?.status == 0 else { return false }
        _ = try? runBlocking("/usr/bin/env", ["umount", folder.path])
        return true
    }()

    @Test(
        "a disk really full (a small tmpfs): 507 with Retry-After, nothing stored; with room again, each report is stored once and the file is whole",
        .enabled(if: canMountTmpfs, "mounting a tmpfs needs root")
    )
    func reallyFullDisk() async throws {
        let team = try await Team()
        let small = team.folder.file("small")
        try FileManager.default.createDirectory(atPath: small, withIntermediateDirectories: true)
        try #require(try await run("/usr/bin/env", ["mount", "-t", "tmpfs", "-o", "size=320k", "tmpfs", small]).status == 0)
        defer { _ = try? runBlocking("/usr/bin/env", ["umount", "-l", small]) }
        let store = small + "/reports.sqlite"
        let collector = try RunningCollector(store: store, tokens: team.tokensFile)
        let reports = try (try await team.device("phone", errors: 8, padding: 48 << 10)).reports().map { try Data(contentsOf: $0) }
        func upload(_ report: Data) async throws -> (status: Int, body: Data) {
            try await collector.request(
                "POST", "v1/reports", token: team.ingest, headers: ["Idempotency-Key": ReportDigest.hex(of: report), "Rewind-Install": "one"], body: report
            )
        }
        var statuses: [Int] = []
        for report in reports { statuses.append(try await upload(report).status) }
        let stored = statuses.prefix { $0 == 201 }.count
        #expect(stored >= 1 && stored < reports.count && statuses.dropFirst(stored).allSatisfy { $0 == 507 }, "\(statuses)")
        let refused = try await upload(reports[stored])
        #expect(String(decoding: refused.body, as: UTF8.self).contains("disk is full"), "\(String(decoding: refused.body, as: UTF8.self))")
        #expect(try await collector.request("GET", "healthz", token: nil).status == 200)
        // Room again: every report is stored, the ones taken before once.
        try #require(try await run("/usr/bin/env", ["mount", "-o", "remount,size=16m", small]).status == 0)
        var again: [Int] = []
        for report in reports { again.append(try await upload(report).status) }
        #expect(again == Array(repeating: 200, count: stored) + Array(repeating: 201, count: reports.count - stored), "\(again)")
        collector.stop()
        let kept = try await ReportStore(path: store).allReports()
        #expect(kept.count == reports.count && Set(kept.map(\.digest)) == Set(reports.map { ReportDigest.hex(of: $0) }))
        let check = try await run("/usr/bin/env", ["sqlite3", store, "PRAGMA integrity_check"])
        #expect(check.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "ok", "\(check)")
    }

    @Test("past the uploads taken at once, another is answered 503 with Retry-After before its body is read; the first is stored")
    func concurrentUploads() async throws {
        let team = try await Team()
        let collector = try RunningCollector(store: team.store, tokens: team.tokensFile, extra: ["--max-concurrent-uploads", "1"])
        let reports = try (try await team.device("phone", errors: 2)).reports().map { try Data(contentsOf: $0) }
        let socket = try LoopbackConnection(port: collector.port)
        let head = "POST /v1/reports HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(team.ingest)\r\nIdempotency-Key: \(ReportDigest.hex(of: reports[0]))\r\n"
            + "Rewind-Install: one\r\nContent-Length: \(reports[0].count)\r\nConnection: close\r\n\r\n"
        #expect(socket.send(Array(head.utf8) + Array(reports[0].prefix(100))))
        try await Task.sleep(for: .milliseconds(300))
        let second = try await collector.request(
            "POST", "v1/reports", token: team.ingest, headers: ["Idempotency-Key": ReportDigest.hex(of: reports[1]), "Rewind-Install": "two"], body: reports[1]
        )
        #expect(second.status == 503 && String(decoding: second.body, as: UTF8.self).contains("too many uploads at once"))
        #expect(socket.send(Array(reports[0].dropFirst(100))))
        #expect(socket.receiveAll().hasPrefix("HTTP/1.1 201"))
        #expect(try await ReportStore(path: team.store).allReports().count == 1)
    }

    @Test("--retention-days: reports older than that are deleted when the collector starts; newer ones stay")
    func retentionAtStart() async throws {
        let team = try await Team()
        let store = try ReportStore(path: team.store, create: true)
        let reports = try (try await team.device("phone", errors: 2)).reports().map { try Data(contentsOf: $0) }
        for (index, report) in reports.enumerated() {
            let header = try FieldReport(bytes: report, path: "r").header
            let age = index == 0 ? 3.0 * 86_400 : 3_600  // three days old, an hour old
            _ = try await store.receive(report, header: header, idempotencyKey: "r\(index)", install: "one", token: "notes-app", receivedAt: Date(timeIntervalSinceNow: -age))
        }
        await store.close()
        let collector = try RunningCollector(store: team.store, tokens: team.tokensFile, extra: ["--retention-days", "1"])
        let began = ContinuousClock.now
        var keys: [String] = []
        repeat {
            let listed = try await collector.request("GET", "v1/reports", token: team.read)
            keys = try JSONDecoder().decode([CollectedReport].self, from: listed.body).map(\.digest)
            if keys.count != 1 { try await Task.sleep(for: .milliseconds(100)) }
        } while keys.count != 1 && ContinuousClock.now - began < .seconds(5)
        #expect(keys == [ReportDigest.hex(of: reports[1])])
    }

    @Test("TLS served directly: a client trusting the certificate uploads over HTTPS, once; plain HTTP gets no answer; bad TLS files exit 2 before anything listens")
    func tlsDirectly() async throws {
        let team = try await Team()
        // A self-signed certificate for 127.0.0.1 (and another's key), as openssl makes them.
        func certificate(_ name: String) async throws {
            let made = try await run("/usr/bin/env", [
                "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                "-keyout", team.folder.file("\(name).key.pem"), "-out", team.folder.file("\(name).pem"),
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            ])
            try #require(made.status == 0, "\(made.standardError)")
        }
        try await certificate("server")
        try await certificate("other")
        let collector = try RunningCollector(
            store: team.store, tokens: team.tokensFile,
            extra: ["--tls-certificate", team.folder.file("server.pem"), "--tls-key", team.folder.file("server.key.pem"), "--request-deadline", "2"]
        )
        #expect(collector.url.scheme == "https")
        // A client trickling its TLS handshake (a ClientHello's first bytes, one each 200 ms) is
        // cut off at the request deadline, which runs from the connection's opening.
        let began = ContinuousClock.now
        let socket = try LoopbackConnection(port: collector.port)
        var closed = false
        for byte in [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03] + [UInt8](repeating: 0x41, count: 100) {
            if !socket.send([UInt8(byte)]) { closed = true; break }
            try await Task.sleep(for: .milliseconds(200))
            if ContinuousClock.now - began > .seconds(15) { break }
        }
        #expect(closed && ContinuousClock.now - began < .seconds(10), "a trickled TLS handshake was kept open")
        // curl, trusting the certificate: the upload is stored, and its retry is the same report.
        let report = try #require(try await team.device("phone").reports().first)
        let key = ReportDigest.hex(of: try Data(contentsOf: report))
        for expected in ["201", "200"] {
            let upload = try await run("/usr/bin/env", [
                "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", team.folder.file("server.pem"), "-X", "POST",
                "-H", "Authorization: Bearer \(team.ingest)", "-H", "Idempotency-Key: \(key)", "-H", "Rewind-Install: one",
                "--data-binary", "@\(report.path)", collector.url.appendingPathComponent("v1/reports").absoluteString,
            ])
            #expect(upload.standardOutput == expected, "\(upload.standardOutput) \(upload.standardError)")
        }
        // Not trusting it, or speaking plain HTTP to it: no answer.
        let untrusted = try await run("/usr/bin/env", ["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", collector.url.appendingPathComponent("healthz").absoluteString])
        #expect(untrusted.status != 0 && untrusted.standardOutput == "000")
        let plain = try await run("/usr/bin/env", ["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(collector.port)/healthz"])
        #expect(plain.standardOutput != "200")
        collector.stop()
        #expect(try await ReportStore(path: team.store).allReports().map(\.digest) == [key])
        // Refused before the store is opened or anything listens.
        let rewind = builtProduct("rewind")
        let fresh = team.folder.file("fresh.sqlite")
        for (tls, message) in [
            (["--tls-certificate", team.folder.file("server.pem")], "--tls-certificate and --tls-key go together"),
            (["--tls-certificate", team.folder.file("server.pem"), "--tls-key", team.folder.file("other.key.pem")], "not the private key of the certificate"),
            (["--tls-certificate", team.tokensFile, "--tls-key", team.folder.file("server.key.pem")], "not a PEM certificate chain"),
            (["--tls-certificate", team.folder.file("missing.pem"), "--tls-key", team.folder.file("server.key.pem")], "missing.pem: no such file"),
            (["--tls-certificate", team.folder.file("server.pem"), "--tls-key", team.tokensFile], "not a PEM private key"),
        ] {
            let refused = try await run(rewind, ["collect", "--store", fresh, "--tokens", team.tokensFile, "--listen", "127.0.0.1:0"] + tls, timeout: 20)
            #expect(refused.status == 2 && refused.standardError.contains(message), "\(tls): \(refused.standardError)")
        }
        #expect(!FileManager.default.fileExists(atPath: fresh))
    }

    @Test("SIGTERM lets an upload in flight finish and be stored, then the collector exits")
    func gracefulShutdown() async throws {
        let team = try await Team()
        let collector = try RunningCollector(store: team.store, tokens: team.tokensFile)
        let report = try Data(contentsOf: try #require(try await team.device("phone").reports().first))
        // Headers and half the body, then SIGTERM, then the rest.
        let socket = try LoopbackConnection(port: collector.port)
        let head = "POST /v1/reports HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(team.ingest)\r\nIdempotency-Key: \(ReportDigest.hex(of: report))\r\n"
            + "Rewind-Install: one\r\nContent-Length: \(report.count)\r\nConnection: close\r\n\r\n"
        #expect(socket.send(Array(head.utf8) + Array(report.prefix(report.count / 2))))
        try await Task.sleep(for: .milliseconds(300))
        kill(collector.process.processIdentifier, SIGTERM)
        try await Task.sleep(for: .milliseconds(300))
        #expect(collector.process.isRunning, "it waits for the upload in flight")
        #expect(socket.send(Array(report.suffix(from: report.count / 2))))
        let answer = socket.receiveAll()
        #expect(answer.hasPrefix("HTTP/1.1 201"), "\(answer)")
        collector.process.waitUntilExit()
        #expect(collector.process.terminationReason == .exit && collector.process.terminationStatus == 0, "it exits with 0 once the upload is stored")
        #expect(try await ReportStore(path: team.store).allReports().count == 1)
    }
}
#endif
