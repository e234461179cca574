import Foundation
@testable import RewindCLI
@testable import RewindInspector
import RewindTestSupport
import Synchronization
import Testing

/// Long API calls as jobs: answered `202` with progress after `answerWithin`, polled to their
/// answer, cancelled when nobody asks, and bounded in number.
@Suite("inspector jobs")
struct InspectorJobTests {
    static let host = "127.0.0.1:8765"
    static let token = "job-token-0123456789"

    /// Limits for a test: answered within 0.1 s, abandoned after `abandonAfter` — by default
    /// a minute, so that a test on a loaded machine (the whole suite runs at once) never has a
    /// job abandoned between two of its own requests.
    static func limits(running: Int = 2, calls: Int = 64, abandonAfter: Duration = .seconds(60)) -> Inspector.Limits {
        var limits = Inspector.Limits()
        limits.answerWithin = .milliseconds(100)
        limits.abandonAfter = abandonAfter
        limits.running = running
        limits.calls = calls
        return limits
    }

    static func get(_ inspector: Inspector, _ target: String) async -> InspectorResponse {
        await inspector.respond(to: InspectorRequest(target: target, headers: ["Host": host, "X-Rewind-Token": token]))
    }

    static func object(_ response: InspectorResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
    }

    @Test("a call longer than answerWithin is a job: 202 with its progress, then its own answer on a poll")
    func pollsToTheAnswer() async throws {
        let api = GatedAPI()
        let inspector = Inspector(api: api, title: "t", token: Self.token, hosts: [Self.host], limits: Self.limits())
        let first = await Self.get(inspector, "/api/work?n=1")
        #expect(first.status == 202)
        #expect(first.header("retry-after") == "1")
        let pending = try Self.object(first)
        let id = try #require(pending["job"] as? String)
        #expect(pending["call"] as? String == "work")
        #expect(pending["state"] as? String == "running")
        let progress = try #require(pending["progress"] as? [String: Any])
        #expect(progress["what"] as? String == "working" && progress["done"] as? Int == 1 && progress["total"] as? Int == 10)
        // The same call asked again joins the job rather than starting another.
        let joined = try Self.object(await Self.get(inspector, "/api/work?n=1"))
        #expect(joined["job"] as? String == id)
        #expect(api.started.load(ordering: .relaxed) == 1)
        #expect(await Self.get(inspector, "/api/job?id=\(id)").status == 202)
        api.open()
        let answer = await Self.get(inspector, "/api/job?id=\(id)")
        #expect(answer.status == 200)
        #expect(String(decoding: answer.body, as: UTF8.self) == #"{"n":"1"}"#)
        #expect(answer.header("cache-control") == "no-store")
        // A job no one has heard of, or whose answer was dropped, is a clear 404.
        let unknown = await Self.get(inspector, "/api/job?id=feed")
        #expect(unknown.status == 404)
        #expect(try Self.object(unknown)["error"] as? String == "no job feed: not one this inspector handed out, cancelled because nobody asked about it for 60.0 s, or its answer dropped after 60.0 s unasked")
    }

    @Test("a job nobody asks about is cancelled: its work sees isCancelled and stops")
    func abandoned() async throws {
        let api = GatedAPI()
        let inspector = Inspector(api: api, title: "t", token: Self.token, hosts: [Self.host], limits: Self.limits(abandonAfter: .milliseconds(300)))
        let started = ContinuousClock.now
        #expect(await Self.get(inspector, "/api/work?n=1").status == 202)
        // The gate never opens: only the cancellation ends the work. Measured in the work's own
        // turns (10 ms each), not the wall clock: under the whole suite, tests that wait on
        // processes can hold the cooperative pool's threads for minutes, and then neither the
        // work nor this loop runs. Fails if the work takes 3,000 turns (30 s of its own, far
        // past abandonAfter) without seeing it is cancelled, or nothing at all happens in 15 min.
        let turns = api.turns.load(ordering: .relaxed)
        while api.cancelled.load(ordering: .relaxed) == 0, api.turns.load(ordering: .relaxed) - turns < 3_000, ContinuousClock.now - started < .seconds(900) {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(api.cancelled.load(ordering: .relaxed) == 1)
    }

    @Test("a finished job's answer outlives abandonAfter: a poll seconds late still gets it, until keepAnswersFor, and only the most recent are kept")
    func keepsAnswers() async throws {
        let api = GatedAPI()
        var limits = Self.limits(calls: 2, abandonAfter: .milliseconds(200))
        limits.keepAnswersFor = .seconds(60)
        let inspector = Inspector(api: api, title: "t", token: Self.token, hosts: [Self.host], limits: limits)
        /// Starts a call that answers after 300 ms, and waits until it has (without asking).
        func finishedJob(_ n: Int) async throws -> String {
            let pending = await Self.get(inspector, "/api/slow?n=\(n)")
            #expect(pending.status == 202)
            let id = try #require(try Self.object(pending)["job"] as? String)
            let deadline = ContinuousClock.now + .seconds(60)
            while inspector.jobs.counts.busy > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            #expect(inspector.jobs.counts.busy == 0, "a 300 ms call still running after a minute")
            return id
        }
        let late = try await finishedJob(1)
        // The page polls late: well past abandonAfter since it was handed the id.
        try await Task.sleep(for: .milliseconds(600))
        let answer = await Self.get(inspector, "/api/job?id=\(late)")
        #expect(answer.status == 200)
        #expect(String(decoding: answer.body, as: UTF8.self) == #"{"slow":"1"}"#)
        // At most `calls` answers are kept: a third drops the least recently asked.
        let first = try await finishedJob(2)
        let second = try await finishedJob(3)
        let third = try await finishedJob(4)
        #expect(await Self.get(inspector, "/api/job?id=\(first)").status == 404)
        #expect(await Self.get(inspector, "/api/job?id=\(second)").status == 200)
        #expect(await Self.get(inspector, "/api/job?id=\(third)").status == 200)

        // And kept no longer than keepAnswersFor.
        limits.keepAnswersFor = .milliseconds(300)
        let brief = Inspector(api: api, title: "t", token: Self.token, hosts: [Self.host], limits: limits)
        let pending = await Self.get(brief, "/api/slow?n=5")
        let id = try #require(try Self.object(pending)["job"] as? String)
        let deadline = ContinuousClock.now + .seconds(60)
        while brief.jobs.counts.busy > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(brief.jobs.counts.busy == 0, "a 300 ms call still running after a minute")
        try await Task.sleep(for: .milliseconds(800))
        #expect(await Self.get(brief, "/api/job?id=\(id)").status == 404)
    }

    @Test("long calls take turns: at most `running` at once, the others wait in order and all answer")
    func takesTurns() async throws {
        let api = GatedAPI()
        let inspector = Inspector(api: api, title: "t", token: Self.token, hosts: [Self.host], limits: Self.limits(running: 2))
        var ids: [String] = []
        for n in 1...4 {
            let pending = try Self.object(await Self.get(inspector, "/api/work?n=\(n)"))
            ids.append(try #require(pending["job"] as? String))
            #expect(pending["state"] as? String == (n <= 2 ? "running" : "waiting"))
        }
        #expect(api.started.load(ordering: .relaxed) == 2)
        // A short call does not wait behind them.
        #expect(await Self.get(inspector, "/api/quick").status == 200)
        api.open()
        for (n, id) in ids.enumerated() {
            var answer = await Self.get(inspector, "/api/job?id=\(id)")
            while answer.status == 202 { answer = await Self.get(inspector, "/api/job?id=\(id)") }
            #expect(String(decoding: answer.body, as: UTF8.self) == #"{"n":"\#(n + 1)"}"#)
        }
        #expect(api.mostAtOnce.load(ordering: .relaxed) == 2)
    }

    @Test("calls beyond the limit are refused with 503 and Retry-After, not queued without bound")
    func refusesBeyondTheLimit() async throws {
        let api = GatedAPI()
        let inspector = Inspector(api: api, title: "t", token: Self.token, hosts: [Self.host], limits: Self.limits(running: 1, calls: 3))
        for n in 1...3 { #expect(await Self.get(inspector, "/api/work?n=\(n)").status == 202) }
        let refused = await Self.get(inspector, "/api/work?n=4")
        #expect(refused.status == 503)
        #expect(refused.header("retry-after") == "1")
        #expect(try Self.object(refused)["error"] as? String == "the inspector is busy: 3 calls are running or waiting; ask again shortly")
        api.open()
    }

    @Test("verify of a large log through rewind serve's API: 202 with replay progress, the CLI's report when polled; abandoned, the replay stops")
    func verifyAsAJob() async throws {
        let folder = try TemporaryDirectory()
        let path = try await demoLog(actions: 200_000, in: folder)
        var limits = Self.limits()
        limits.answerWithin = .milliseconds(50)
        let inspector = InspectorHarness.inspector(path: path, host: Self.host, token: Self.token, limits: limits)
        // Asked again as soon as each ask ends: never abandoned.
        let began = ContinuousClock.now
        let first = await Self.get(inspector, "/api/verify")
        #expect(first.status == 202)
        let id = try #require(try Self.object(first)["job"] as? String)
        var answer = first
        var progress: [String: Any]?
        while answer.status == 202 {
            if let reported = try Self.object(answer)["progress"] as? [String: Any] { progress = reported }
            answer = await Self.get(inspector, "/api/job?id=\(id)")
        }
        let whole = ContinuousClock.now - began
        #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
        let reported = try #require(progress, "no progress was reported while verify ran")
        // Where the replay was, and where its walk ends (verify folds from snapshot to
        // snapshot, and counts toward the last).
        let (done, total) = (reported["done"] as? Int ?? 0, reported["total"] as? Int ?? 0)
        #expect(reported["what"] as? String == "replaying" && done > 0 && done % 1_000 == 0 && done <= total && total <= 200_010, "\(reported)")
        let cli = try await run(builtProduct("rewind"), ["verify", path, "--json"], in: folder.path, timeout: 120)
        let report = try #require(try JSONSerialization.jsonObject(with: answer.body) as? NSDictionary)
        #expect(report == (try JSONSerialization.jsonObject(with: Data(cli.standardOutput.utf8)) as? NSDictionary))
        #expect(report["agrees"] as? Bool == true && report["eventsFolded"] as? Int == 200_000)

        // Started and abandoned: the replay stops long before a verify's time.
        var abandoning = limits
        abandoning.abandonAfter = .seconds(1)
        let abandoned = InspectorHarness.inspector(path: path, host: Self.host, token: Self.token, limits: abandoning)
        let took = ContinuousClock.now
        #expect(await Self.get(abandoned, "/api/verify").status == 202)
        let jobs = InspectorHarness.jobs(of: abandoned)
        while jobs.counts.busy > 0, ContinuousClock.now - took < .seconds(60) {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(jobs.counts.busy == 0)
        let stopped = ContinuousClock.now - took
        // Abandoned after 1 s, it stops at its next check (every 1,000 seqs), where the
        // whole verify took `whole`.
        #expect(stopped < whole * 3 / 4, "the abandoned verify ran \(stopped) of \(whole)")
    }
}

/// Answers `work` once opened (reporting progress meanwhile, and stopping when cancelled), and
/// `quick` at once; counts what it started and how many ran at once.
private final class GatedAPI: InspectorAPI {
    let gate = Mutex(false)
    let started = Atomic(0)
    let cancelled = Atomic(0)
    let running = Atomic(0)
    let mostAtOnce = Atomic(0)
    /// Turns of the work's wait for the gate.
    let turns = Atomic(0)

    func open() { gate.withLock { $0 = true } }

    func isLong(_ call: InspectorCall) -> Bool { call.endpoint == "work" }

    func answer(_ call: InspectorCall, in job: InspectorJob) async -> InspectorResponse {
        if call.endpoint == "slow" {
            // Short (not `isLong`), but longer than answerWithin, and deaf to cancellation.
            try? await Task.sleep(for: .milliseconds(300))
            return .json(Data(#"{"slow":"\#(call["n"] ?? "")"}"#.utf8))
        }
        guard call.endpoint == "work" else { return .json(Data("{}".utf8)) }
        started.add(1, ordering: .relaxed)
        let now = running.add(1, ordering: .relaxed).newValue
        mostAtOnce.max(now, ordering: .relaxed)
        defer { running.subtract(1, ordering: .relaxed) }
        job.report("working", done: 1, of: 10)
        while !gate.withLock({ $0 }) {
            turns.add(1, ordering: .relaxed)
            if job.isCancelled {
                cancelled.add(1, ordering: .relaxed)
                return .error("cancelled", status: 500)
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return .json(Data(#"{"n":"\#(call["n"] ?? "")"}"#.utf8))
    }
}
