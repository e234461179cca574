import Foundation
import GRDB
import Rewind
@testable import RewindCLI
import RewindExamples
import RewindLog
import RewindTestSupport
import Testing

@Suite("Inspector API")
struct InspectorAPITests {
    @Test("overview: the seq range, the sessions as `sessions --json`, the app's invariants")
    func overview() async throws {
        let folder = try TemporaryDirectory()
        let inspector = await InspectorHarness(path: try demoLog(in: folder))
        let overview = try await inspector.json("/api/overview")
        #expect(overview["seqs"] as? [Int] == [1, 60])
        let sessions = try #require(overview["sessions"] as? [[String: Any]])
        #expect(sessions.count == 1)
        #expect(sessions.first?["app"] as? String == "com.example.shop")
        let app = try #require((overview["apps"] as? [[String: Any]])?.first)
        #expect(app["replayable"] as? Bool == true)
        #expect((app["invariants"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["non-negative-total", "discount-within-subtotal"])
        #expect((overview["drifts"] as? [Any])?.isEmpty == true)
        let head = try await inspector.json("/api/head")
        #expect(head["seqs"] as? [Int] == [1, 60])
        #expect(head["sessions"] as? Int == 1)
    }

    @Test("state: amounts the app says how to show come with its text, by path; the stored numbers stay as they are")
    func formattedState() async throws {
        let folder = try TemporaryDirectory()
        let inspector = await InspectorHarness(path: try demoLog(in: folder))
        let report = try await inspector.json("/api/state?at=12")
        let state = try #require(report["state"] as? [String: Any])
        let cart = try #require(state["cart"] as? [String: Any])
        #expect(cart["total"] as? Int == -1_000)
        let formatted = try #require(report["formatted"] as? [String: String])
        // The shop's own Money text, for every amount the shop names, and for nothing else.
        #expect(formatted["cart.total"] == "-10.00")
        #expect(formatted["cart.subtotal"] == Money(cart["subtotal"] as? Int ?? 0).description)
        let lines = try #require(cart["lines"] as? [[String: Any]])
        for (index, line) in lines.enumerated() {
            #expect(formatted["cart.lines.\(index).unitPrice"] == Money(line["unitPrice"] as? Int ?? 0).description)
            #expect(formatted["cart.lines.\(index).quantity"] == nil)
        }
        #expect(formatted.keys.allSatisfy { key in ["price", "unitPrice", "subtotal", "discountAmount", "total", "minimumSubtotal"].contains(key.split(separator: ".").last.map(String.init) ?? "") })
    }

    @Test("overview: how the app's types changed since the sessions were recorded, as `schema --diff` says")
    func overviewDrift() async throws {
        let folder = try TemporaryDirectory()
        let path = try await demoLog(in: folder)
        // The shop's action type as a build without the cart's `clear` case recorded it.
        try await DatabaseQueue(path: path).write { db in
            try db.execute(sql: """
                UPDATE type_shapes SET shape = replace(shape, ',{"fields":[],"name":"clear"}', '')
                WHERE id = (SELECT action_shape_id FROM sessions WHERE id = 1)
                """)
        }
        let overview = try await InspectorHarness(path: path).json("/api/overview")
        let drift = try #require((overview["drifts"] as? [[String: Any]])?.first)
        #expect(drift["sessions"] as? [Int] == [1])
        #expect(drift["label"] as? String == "session 1")
        #expect(drift["changes"] as? [String] == ["CartAction: case `clear` added"])
        #expect((drift["drift"] as? [String: Any])?["typeName"] as? String == "ShopAction")
    }

    @Test("paging forward and backward through the timeline yields every event once, in order, whatever the page size")
    func paging() async throws {
        let folder = try TemporaryDirectory()
        let inspector = await InspectorHarness(path: try demoLog(actions: 250, in: folder))
        let all = try #require(try EventLog(path: folder.file("demo.rewind"), mode: .readOnly).seqRange())
        // Pages of 100 end twice inside the log and once at a part page; pages of 1,000 hold it all.
        try #require(all.count > 200 && all.count % 100 != 0 && all.count < 1_000)
        for limit in [1, 7, 100, 1_000] {
            #expect(try await inspector.allPages("", limit: limit) == Array(all), "limit \(limit)")
            #expect(try await inspector.allPages("", limit: limit, backward: true) == Array(all), "limit \(limit)")
        }
        // The default page, and the ends.
        #expect(try await inspector.page("").seqs == Array(1...100))
        #expect(try await inspector.page("after=\(all.upperBound)").seqs.isEmpty)
        #expect(try await inspector.page("after=\(Int64.max)") == ([], false))
        #expect(try await inspector.page("before=1") == ([], false))
        #expect(try await inspector.page("before=\(Int64.max)&limit=2").seqs == [all.upperBound - 1, all.upperBound])
    }

    @Test("collapse=ROOTS leaves out what those gestures led to, paging both ways, and nothing else")
    func collapse() async throws {
        let folder = try TemporaryDirectory()
        let path = try await demoLog(actions: 250, in: folder)
        let inspector = InspectorHarness(path: path)
        var cursor = try EventLog(path: path, mode: .readOnly).events()
        let events = try cursor.collect()
        // The gestures that led to something: every tap on pay, and the rest.
        let roots = Set(events.compactMap { $0.root == $0.seq ? nil : $0.root })
        try #require(roots.count >= 3)
        let chosen = Array(roots.sorted().prefix(3))
        let expected = events.filter { event in !(event.root.map { chosen.contains($0) && $0 != event.seq } ?? false) }.map(\.seq)
        #expect(expected.count < events.count && chosen.allSatisfy(expected.contains))
        let query = "collapse=" + chosen.map(String.init).joined(separator: ",")
        for limit in [1, 7, 1_000] {
            #expect(try await inspector.allPages(query, limit: limit) == expected, "limit \(limit)")
            #expect(try await inspector.allPages(query, limit: limit, backward: true) == expected, "limit \(limit)")
        }
        // A seq that is no gesture, or not in the log, collapses nothing.
        #expect(try await inspector.page("collapse=9999999&limit=1000").seqs == events.map(\.seq))
        for (bad, message) in [("collapse=0", "give seqs"), ("collapse=8,x", "give seqs"), ("collapse=8,,9", "give seqs"), ("collapse=-3", "give seqs")] {
            let response = await inspector.get("/api/events?" + bad), body = String(decoding: response.body, as: UTF8.self)
            #expect(response.status == 400 && body.contains(message), "\(bad): \(body)")
        }
        let many = await inspector.get("/api/events?collapse=" + (1...1_001).map(String.init).joined(separator: ","))
        #expect(many.status == 400 && String(decoding: many.body, as: UTF8.self).contains("at most 1000 seqs"))
    }

    @Test("the timeline's filters are `rewind log`'s: session, case pattern, source file, seq range, time")
    func filters() async throws {
        let folder = try TemporaryDirectory()
        let path = try await demoLog(actions: 300, in: folder)
        let inspector = InspectorHarness(path: path)
        let log = try EventLog(path: path, mode: .readOnly)
        for (query, filter) in [
            ("case=cart.*", EventFilter(actionCase: "cart.*")),
            ("case=cart.setQuantity", EventFilter(actionCase: "cart.setQuantity")),
            ("file=ShopEffects", EventFilter(file: "ShopEffects")),
            ("session=1&from=20&to=90", EventFilter(seqs: 20...90, session: 1)),
            ("case=catalogue.*&file=ShopScreens&from=2", EventFilter(seqs: 2...Int64.max, actionCase: "catalogue.*", file: "ShopScreens")),
            ("case=nothing.like.this", EventFilter(actionCase: "nothing.like.this")),
        ] {
            var cursor = log.events(filter)
            let expected = try cursor.collect().map(\.seq)
            #expect(try await inspector.page(query + "&limit=1000").seqs == expected, "\(query)")
            // Paging a filtered view backward finds the same events.
            let tail = try await inspector.page(query + "&before=\(Int64.max)&limit=5")
            #expect(tail.seqs == Array(expected.suffix(5)), "\(query)")
            #expect(tail.more == (expected.count > 5))
        }
        // A time window relative to the last event, and one before the log began.
        var everything = log.events()
        #expect(try await inspector.page("since=1d&limit=1000").seqs == (try everything.collect().map(\.seq)))
        #expect(try await inspector.page("since=2000-01-01T00:00:00Z&until=2000-01-02T00:00:00Z").seqs.isEmpty)
    }

    @Test("every call only reads: the log's bytes are the same after each of them")
    func readOnly() async throws {
        let folder = try TemporaryDirectory()
        let path = try await demoLog(in: folder)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let inspector = InspectorHarness(path: path)
        let endpoints = Set(LogInspectionEndpoints.allCalls.map { String($0.prefix { $0 != "?" }) })
        #expect(endpoints == Set(LogInspection.endpoints.keys), "every endpoint is called")
        for call in LogInspectionEndpoints.allCalls {
            _ = await inspector.get("/api/" + call)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "\(call) changed the log")
        }
    }

    @Test("odd paging and filter values are refused with the CLI's messages, never a trap")
    func oddArguments() async throws {
        let folder = try TemporaryDirectory()
        let inspector = await InspectorHarness(path: try demoLog(in: folder))
        let cases: [(String, Int, String)] = [
            ("/api/events?limit=0", 400, "limit=0: give a whole number from 1 to 1000"),
            ("/api/events?limit=-1", 400, "limit=-1"),
            ("/api/events?limit=1001", 400, "limit=1001"),
            ("/api/events?limit=abc", 400, "limit=abc"),
            ("/api/events?after=-1", 400, "after=-1"),
            ("/api/events?before=0", 400, "before=0"),
            ("/api/events?after=1&before=5", 400, "not both"),
            ("/api/events?after=\(Int64.max)0", 400, "after="),
            ("/api/events?from=9&to=3", 400, "--from 9 is after --to 3"),
            ("/api/events?session=0", 400, "--session 0: a session number is 1 or more"),
            ("/api/events?since=yesterday", 400, "--since 'yesterday'"),
            ("/api/events?line=-4", 400, "--line -4"),
            ("/api/events?nonsense=1", 400, "'events' has no parameter 'nonsense'"),
            // The API runs no other program: profile's --baseline is not among its parameters.
            ("/api/profile?baseline=/bin/echo", 400, "'profile' has no parameter 'baseline'"),
            ("/api/state", 400, "--at"),
            ("/api/state?at=0", 400, "--at 0: a seq is 1 or more"),
            ("/api/state?at=-1", 400, "--at -1: a seq is 1 or more"),
            ("/api/state?at=\(Int64.max)", 404, "there is no event with seq \(Int64.max) (the log holds seq 1…60)"),
            ("/api/state?at=1.5", 400, "'1.5' is invalid"),
            ("/api/state?at=--json", 400, "'--json' is invalid"),
            ("/api/state?at=12&key-file=/etc/passwd", 400, "'state' has no parameter 'key-file'"),
            ("/api/diff?at=3&from=1", 400, "give either --at SEQ, or both --from SEQ and --to SEQ"),
            ("/api/bisect", 400, "give either --invariant NAME or --where 'CONDITION'"),
            ("/api/bisect?invariant=nope", 400, "no invariant named 'nope' (known: non-negative-total, discount-within-subtotal)"),
            ("/api/bisect?where=cart.total%20%3C", 400, "--where"),
            ("/api/bisect?invariant=non-negative-total&monotonic=maybe", 400, "monotonic=maybe: give true or false"),
            ("/api/replay", 400, "give the seqs to leave out with --without SEQ"),
            ("/api/replay?without=0", 400, "--without 0"),
            ("/api/event", 400, "give the event's seq with --at SEQ"),
            ("/api/event?at=-3", 400, "--at -3: a seq is 1 or more"),
            ("/api/event?at=61", 404, "there is no event with seq 61"),
            ("/api/shrink?invariant=non-negative-total&output=/tmp/x", 400, "'shrink' has no parameter 'output'"),
            ("/api/verify?session=2", 404, "session 2"),
            ("/api/nothing", 404, "no API call 'nothing'"),
            ("/api/stats?buckets=0", 400, "--buckets 0: give 1 to 1000 stretches"),
            ("/api/stats?buckets=1001", 400, "--buckets 1001"),
            ("/api/snapshots?session=-1", 400, "--session -1"),
        ]
        for (target, status, message) in cases {
            let error = try await inspector.error(target, status: status)
            #expect(error.contains(message), "\(target): \(error)")
        }
    }

    @Test("stats with buckets: activity over time whose stretches add up to the events")
    func activity() async throws {
        let folder = try TemporaryDirectory()
        let inspector = await InspectorHarness(path: try demoLog(in: folder))
        let stats = try await inspector.json("/api/stats?buckets=12")
        let activity = try #require(stats["activity"] as? [String: Any])
        let total = try #require(activity["total"] as? [Int])
        #expect(total.count == 12)
        #expect(total.reduce(0, +) == 60)
        #expect((activity["cases"] as? [[String: Any]])?.first?["name"] as? String == "cart.add")
        #expect(try await inspector.json("/api/stats")["activity"] == nil)
    }

    @Test("state at a step is the replayed state; the diff at seq 12 shows the total going to −10.00")
    func stateAndDiff() async throws {
        let folder = try TemporaryDirectory()
        let inspector = await InspectorHarness(path: try demoLog(in: folder))
        let state = try await inspector.json("/api/state?at=12")
        #expect(state["seq"] as? Int == 12)
        let cart = try #require((state["state"] as? [String: Any])?["cart"] as? [String: Any])
        #expect(cart["total"] as? Int == -1000)
        let before = try await inspector.json("/api/state?at=11")
        #expect(((before["state"] as? [String: Any])?["cart"] as? [String: Any])?["total"] as? Int != -1000)

        let diff = try await inspector.json("/api/diff?at=12")
        let text = try #require(diff["diff"] as? String)
        #expect(text.contains("+     total: -1000"))
        #expect((diff["event"] as? [String: Any])?["action"] as? String == "cart.setQuantity")
        let between = try await inspector.json("/api/diff?from=10&to=12")
        #expect((between["diff"] as? String)?.contains("+     total: -1000") == true)
        #expect(try await inspector.json("/api/diff?from=12&to=12")["diff"] == nil)
    }

    @Test("blame: a value's history is rewind blame's answer; a path not there is a 400 naming the nearest key")
    func blame() async throws {
        let folder = try TemporaryDirectory()
        let path = try await demoLog(in: folder)
        let inspector = InspectorHarness(path: path)
        let served = try await inspector.json("/api/blame?path=cart.total&session=1&from=5&to=30")
        let printed = try await run(builtProduct("rewind"), ["blame", path, "--path", "cart.total", "--session", "1", "--from", "5", "--to", "30", "--json"])
        #expect(NSDictionary(dictionary: served) == NSDictionary(dictionary: try #require(JSONSerialization.jsonObject(with: Data(printed.standardOutput.utf8)) as? [String: Any])))
        #expect((served["changes"] as? [[String: Any]])?.contains { $0["seq"] as? Int == 12 } == true)
        let wrong = await inspector.get("/api/blame?path=cart.totl")
        #expect(wrong.status == 400 && String(decoding: wrong.body, as: UTF8.self).contains("did you mean 'total'?"), "\(String(decoding: wrong.body, as: UTF8.self))")
        #expect(await inspector.get("/api/blame").status == 400)
    }

    @Test("why: an event's chain of causes is rewind why's answer; a seq the log lacks is a 404")
    func why() async throws {
        let folder = try TemporaryDirectory()
        let path = try await demoLog(in: folder)
        let inspector = InspectorHarness(path: path)
        for seq in [9, 12] {
            let served = try await inspector.json("/api/why?at=\(seq)")
            let printed = try await run(builtProduct("rewind"), ["why", path, "--at", "\(seq)", "--json"])
            #expect(NSDictionary(dictionary: served) == NSDictionary(dictionary: try #require(JSONSerialization.jsonObject(with: Data(printed.standardOutput.utf8)) as? [String: Any])))
        }
        #expect((try await inspector.json("/api/why?at=9")["chain"] as? [Any])?.count == 2, "the payment result, and the tap on pay")
        #expect(await inspector.get("/api/why?at=999").status == 404, "as for any seq the log lacks")
        #expect(await inspector.get("/api/why").status == 400)
    }

    @Test("bisect by invariant and by condition lands on seq 12; an invariant that holds is not found")
    func bisect() async throws {
        let folder = try TemporaryDirectory()
        let inspector = await InspectorHarness(path: try demoLog(in: folder))
        for query in ["invariant=non-negative-total", "where=cart.total%20%3C%200", "where=cart.total+%3C+0", "invariant=non-negative-total&monotonic=false"] {
            let report = try await inspector.json("/api/bisect?" + query)
            #expect(report["found"] as? Bool == true, "\(query)")
            #expect(report["seq"] as? Int == 12, "\(query)")
        }
        // Skipping ahead by snapshots misses a total that is negative only between two of them
        // (the flag's documented trade), and a condition that never holds is not found.
        #expect(try await inspector.json("/api/bisect?invariant=non-negative-total&monotonic=true")["found"] as? Bool == false)
        #expect(try await inspector.json("/api/bisect?where=cart.total+%3E+100000000")["found"] as? Bool == false)
    }

    @Test("what-if: leaving out seq 11 (the discount) keeps the total from going negative")
    func whatIf() async throws {
        let folder = try TemporaryDirectory()
        let inspector = await InspectorHarness(path: try demoLog(in: folder))
        let report = try await inspector.json("/api/replay?without=11&at=12")
        #expect(report["at"] as? Int == 12)
        #expect((report["without"] as? [[String: Any]])?.compactMap { $0["seq"] as? Int } == [11])
        // The keys before the vocabulary, for one release.
        #expect(report["through"] as? Int == 12)
        #expect((report["skipped"] as? [[String: Any]])?.compactMap { $0["seq"] as? Int } == [11])
        let cart = try #require((report["state"] as? [String: Any])?["cart"] as? [String: Any])
        #expect(try #require(cart["total"] as? Int) >= 0)
        #expect((report["diff"] as? String)?.contains("-     total: -1000") == true)
        let two = try await inspector.json("/api/replay?without=11&without=12")
        #expect((two["without"] as? [[String: Any]])?.count == 2)
    }

    @Test("verify: the demo's snapshots are reproduced; a log whose snapshot was altered diverges there")
    func verify() async throws {
        let folder = try TemporaryDirectory()
        let path = try await demoLog(in: folder)
        let inspector = InspectorHarness(path: path)
        let report = try await inspector.json("/api/verify")
        #expect(report["agrees"] as? Bool == true)
        #expect(report["snapshotsCompared"] as? Int == 2)
        let index = try #require(try await inspector.json("/api/snapshots")["snapshots"] as? [[String: Any]])
        #expect(index.compactMap { $0["seq"] as? Int } == [0, 25, 50])
        #expect(index.compactMap { $0["kind"] as? String } == ["initial", "periodic", "periodic"])
        #expect(try await inspector.json("/api/snapshots?session=1")["snapshots"] as? [[String: Any]] != nil)
        #expect(try await inspector.error("/api/snapshots?session=0", status: 400).contains("--session 0"))

        // Alter the last recorded snapshot: its cart's total is recorded as 1 more.
        let snapshot = try #require(try EventLog(path: path, mode: .readOnly).snapshot(session: 1))
        var state = try JSONDecoder().decode(ShopState.self, from: snapshot.state)
        state.cart.total += 1
        let altered = String(decoding: try JSONEncoder().encode(state), as: UTF8.self)
        let database = try DatabaseQueue(path: path)
        try await database.write { db in
            try db.execute(sql: "UPDATE snapshots SET state = ?, compression = NULL WHERE session_id = 1 AND seq = ?", arguments: [altered, snapshot.seq])
        }
        try database.close()
        let diverged = try await inspector.json("/api/verify")
        #expect(diverged["agrees"] as? Bool == false)
        #expect(diverged["seq"] as? Int == Int(snapshot.seq))
    }

    @Test("shrink: a minimal fixture that still breaks the invariant, and a Swift test that replays it; nothing written beside the log")
    func shrink() async throws {
        let folder = try TemporaryDirectory()
        let inspector = await InspectorHarness(path: try demoLog(in: folder))
        // SQLite's readers may add the log's -wal and -shm files; nothing else appears.
        let files = { try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }.sorted() }
        let before = try files()
        let result = try await inspector.json("/api/shrink?invariant=non-negative-total")
        let report = try #require(result["report"] as? [String: Any])
        #expect(report["found"] as? Bool == true)
        let kept = try #require(report["keptCount"] as? Int)
        #expect(kept >= 1 && kept < 12)
        #expect(result["fixtureName"] as? String == "demo-non-negative-total.rewind")
        let encoded = try #require(result["fixture"] as? String)
        let fixture = try #require(Data(base64Encoded: encoded))
        let file = folder.file("fixture.rewind")
        try fixture.write(to: URL(fileURLWithPath: file))
        let log = try EventLog(path: file, mode: .readOnly)
        #expect(try log.checkIntegrity().isSound)
        #expect(try log.seqRange().map { $0.count } == kept)
        // The fixture still breaks the invariant: the last kept action drives the total negative.
        let replayed = try await InspectorHarness(path: file).json("/api/bisect?invariant=non-negative-total")
        #expect(replayed["found"] as? Bool == true)
        let test = try #require(result["test"] as? String)
        #expect(result["testName"] as? String == "NonNegativeTotalTests.swift")
        #expect(test.contains(#"let log = try fixtureLog("Fixtures/demo-non-negative-total.rewind")"#))
        #expect(test.contains(#"assertInvariant("non-negative-total", throughout: log, reducer: <#AppReducer#>)"#))
        #expect(try files() == (before + ["fixture.rewind"]).sorted())
        let never = try await inspector.json("/api/shrink?where=cart.total+%3E+100000000")
        #expect((never["report"] as? [String: Any])?["found"] as? Bool == false)
        #expect(never["fixture"] == nil)
    }
}

/// One call of every endpoint the API has, with parameters that make it do its work.
enum LogInspectionEndpoints {
    static let allCalls = [
        "overview", "head", "events?limit=50", "events?before=30&collapse=8", "event?seq=12", "sessions", "snapshots", "stats?buckets=10", "check",
        "state?at=12", "diff?at=12", "diff?from=3&to=40", "bisect?invariant=non-negative-total", "replay?skip=11&through=12",
        "verify", "shrink?invariant=non-negative-total", "blame?path=cart.total", "why?at=9", "profile?slowest=3",
    ]
}
