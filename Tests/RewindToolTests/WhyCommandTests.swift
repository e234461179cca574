import Foundation
import Rewind
import RewindExamples
import RewindLog
import RewindTestSupport
import Testing

/// `rewind why` and `rewind log --caused-by`, run as the built binary on the demo's log, checked
/// against the causes the log holds (read through the library).
@Suite("rewind why and log --caused-by")
struct WhyCommandTests {
    @Test("why: a gesture is a root; an effect's result goes back to the tap that started it; the demo's bug is a gesture")
    func chains() async throws {
        let (folder, path, bugSeq) = try await RewindCommandTests.demoLog()
        let log = try EventLog(path: path, mode: .readOnly)
        var cursor = log.events()
        let events = try cursor.collect()
        let result = try #require(events.first { $0.actionCase == "checkout.paymentSucceeded" })
        let submit = try #require(result.cause.flatMap { cause in events.first { $0.seq == cause } })
        #expect(submit.actionCase == "checkout.submit" && submit.isRoot && result.root == submit.seq)

        let text = try await RewindCommandTests.rewind("why", path, "--at", "\(result.seq)", in: folder)
        #expect(text.status == 0, "\(text.standardError)")
        let lines = text.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.count == 3 && lines[0] == "why seq \(result.seq): 1 step from the gesture that started it", "\(text.standardOutput)")
        #expect(lines[1].hasPrefix("  root seq \(submit.seq)  checkout.submit  RewindExamples/ShopScreens.swift:"))
        #expect(lines[2].hasPrefix("  └─ seq \(result.seq)  checkout.paymentSucceeded  RewindExamples/ShopEffects.swift:"))

        let json = try RewindCommandTests.json(try await RewindCommandTests.rewind("why", path, "\(result.seq)", "--json", in: folder).standardOutput)
        #expect(json["start"] as? String == "root" && (json["seq"] as? NSNumber)?.int64Value == result.seq)
        let chain = try #require(json["chain"] as? [[String: Any]])
        #expect(chain.map { ($0["seq"] as? NSNumber)?.int64Value } == [submit.seq, result.seq])
        #expect((chain[1]["cause"] as? NSNumber)?.int64Value == submit.seq && (chain[1]["root"] as? NSNumber)?.int64Value == submit.seq)
        #expect(chain[0]["cause"] == nil && (chain[0]["root"] as? NSNumber)?.int64Value == submit.seq)

        // The demo's bug: a stepper tap, which nothing caused.
        let bug = try await RewindCommandTests.rewind("why", path, "--at", "\(bugSeq)", in: folder)
        #expect(bug.standardOutput.hasPrefix("why seq \(bugSeq): nothing caused it; it is a root (a gesture or outside event)\n  root seq \(bugSeq)  cart.setQuantity"))
        let show = try await RewindCommandTests.rewind("show", path, "--at", "\(result.seq)", in: folder)
        #expect(show.standardOutput.contains("\ncause     seq \(submit.seq) (root \(submit.seq))\n"))
    }

    @Test("bisect names the gesture that started the breaking action's chain; a breaking gesture names none")
    func bisectRoot() async throws {
        let (folder, path, bugSeq) = try await RewindCommandTests.demoLog()
        var cursor = try EventLog(path: path, mode: .readOnly).events()
        let events = try cursor.collect()
        let result = try #require(events.first { $0.actionCase == "checkout.paymentSucceeded" })
        let submit = try #require(result.cause)
        let bisect = try await RewindCommandTests.rewind("bisect", path, "--where", "checkout.orders.count >= 1", in: folder)
        #expect(bisect.status == 0, "\(bisect.standardError)")
        #expect(bisect.standardOutput.contains(": seq \(result.seq)\n"), "\(bisect.standardOutput)")
        #expect(bisect.standardOutput.contains("\nstarted by seq \(submit): seq \(submit)  checkout.submit  "))
        let json = try RewindCommandTests.json(try await RewindCommandTests.rewind("bisect", path, "--where", "checkout.orders.count >= 1", "--json", in: folder).standardOutput)
        #expect(((json["rootEvent"] as? [String: Any])?["seq"] as? NSNumber)?.int64Value == submit)
        let gesture = try RewindCommandTests.json(try await RewindCommandTests.rewind("bisect", path, "--invariant", "non-negative-total", "--json", in: folder).standardOutput)
        #expect((gesture["seq"] as? NSNumber)?.int64Value == bugSeq && gesture["rootEvent"] == nil)
    }

    @Test("replay --without a tap on pay leaves out its payment result, and says so; --keep-caused keeps it")
    func whatIfWithoutPay() async throws {
        let (folder, path, _) = try await RewindCommandTests.demoLog()
        var cursor = try EventLog(path: path, mode: .readOnly).events()
        let events = try cursor.collect()
        let result = try #require(events.first { $0.actionCase == "checkout.paymentSucceeded" })
        let submit = try #require(result.cause)
        let text = try await RewindCommandTests.rewind("replay", path, "--without", "\(submit)", in: folder)
        #expect(text.status == 0 && text.standardOutput.contains("and what they led to:\n  - seq \(result.seq)  checkout.paymentSucceeded"), "\(text.standardOutput)")
        let json = try RewindCommandTests.json(try await RewindCommandTests.rewind("replay", path, "--without", "\(submit)", "--json", in: folder).standardOutput)
        #expect((json["followers"] as? [[String: Any]])?.compactMap { ($0["seq"] as? NSNumber)?.int64Value } == events.filter { $0.cause == submit }.map(\.seq))
        let kept = try RewindCommandTests.json(try await RewindCommandTests.rewind("replay", path, "--without", "\(submit)", "--keep-caused", "--json", in: folder).standardOutput)
        #expect((kept["followers"] as? [Any])?.isEmpty == true)
    }

    @Test("log --caused-by lists the event and exactly what it led to, as the log's causes say; --limit counts what is listed")
    func causedBy() async throws {
        let (folder, path, _) = try await RewindCommandTests.demoLog()
        let log = try EventLog(path: path, mode: .readOnly)
        var cursor = log.events()
        let events = try cursor.collect()
        for gesture in events where gesture.isRoot {
            // Worked out from the causes, independently of the command.
            var led: Set<Int64> = [gesture.seq]
            for event in events where event.seq > gesture.seq {
                if let cause = event.cause, led.contains(cause) { led.insert(event.seq) }
            }
            let listed = try await RewindCommandTests.rewind("log", path, "--caused-by", "\(gesture.seq)", "--json", in: folder)
            #expect(listed.status == 0)
            let seqs = try listed.standardOutput.split(separator: "\n").map { try RewindCommandTests.json(String($0))["seq"] as? NSNumber }.map { $0?.int64Value }
            #expect(seqs == led.sorted(), "seq \(gesture.seq)")
        }
        let submit = try #require(events.first { $0.actionCase == "checkout.submit" })
        let limited = try await RewindCommandTests.rewind("log", path, "--caused-by", "\(submit.seq)", "--limit", "1", in: folder)
        #expect(limited.standardOutput.split(separator: "\n").count == 1 && limited.standardOutput.contains("seq \(submit.seq)  checkout.submit"))
    }

    @Test("a chain of 41 steps prints its ends and how many it leaves out; --json has every step")
    func longChain() async throws {
        struct Count: Codable, Sendable { var value = 0 }
        let folder = try TemporaryDirectory()
        let path = folder.file("chain.rewind")
        let recorder = Recorder<Count, Int>(log: try EventLog(path: path), app: AppIdentity(id: "chain"))
        // Each action's middleware dispatches the next: one chain from the first.
        let store = Store(initialState: Count(), reducer: Reducer { state, _ in state.value += 1 }, middleware: .combine(
            recorder.middleware, Middleware(didReduce: { dispatched, _, context in if dispatched.action < 40 { context.dispatch(dispatched.action + 1) } })
        ))
        store.dispatch(0)
        try await recorder.close()
        let text = try await RewindCommandTests.rewind("why", path, "--at", "41", in: folder)
        let lines = text.standardOutput.split(separator: "\n").map(String.init)
        #expect(text.status == 0 && lines.first == "why seq 41: 40 steps from the gesture that started it", "\(text.standardOutput)")
        #expect(lines.count == 1 + 4 + 1 + 24 && lines[5].contains("… 13 steps (all of them with --json) …") && lines[1].contains("root seq 1 "))
        let json = try RewindCommandTests.json(try await RewindCommandTests.rewind("why", path, "--at", "41", "--json", in: folder).standardOutput)
        #expect((json["chain"] as? [[String: Any]])?.compactMap { ($0["seq"] as? NSNumber)?.int64Value } == Array(1...41))
    }

    @Test("odd arguments: no seq, seq 0, two different seqs, a seq the log lacks, a seq of another session; exit 2 with a clear message")
    func oddArguments() async throws {
        let (folder, path, _) = try await RewindCommandTests.demoLog(actions: 20)
        for (arguments, message) in [
            (["why", path], "give the event's seq with --at SEQ"),
            (["why", path, "--at", "0"], "--at"),
            (["why", path, "3", "--at", "4"], "two different seqs: 3 and --at 4"),
            (["why", path, "--at", "999"], "there is no event with seq 999"),
            (["log", path, "--caused-by", "999"], "there is no event with seq 999"),
            (["log", path, "--caused-by", "-1"], "--caused-by"),
            (["log", path, "--caused-by", "3", "--session", "2"], "seq 3 is in session 1, not 2"),
            (["log", path, "--caused-by", "8", "--from", "1", "--to", "5"], "--to 5 is before --caused-by 8"),
            (["why", folder.file("missing.rewind"), "--at", "1"], "missing.rewind"),
        ] {
            let result = try await run(builtProduct("rewind"), arguments, in: folder.path)
            #expect(result.status == 2 && result.standardError.contains(message), "\(arguments): \(result.standardError)")
        }
    }
}
