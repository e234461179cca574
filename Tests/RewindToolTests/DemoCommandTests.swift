import Foundation
import RewindLog
import RewindTestSupport
import Testing

@Suite("rewind demo")
struct DemoCommandTests {
    @Test("records the shop session into a log that the timeline view reads, and suggests what to try")
    func recordsALog() async throws {
        let folder = try TemporaryDirectory()
        let result = try await run(builtProduct("rewind"), ["demo", "--actions", "40", "--output", "shop.rewind"], in: folder.path)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("Recorded 40 actions into shop.rewind (session 1,"))
        #expect(result.standardOutput.contains("← total is negative"))
        #expect(result.standardOutput.contains("sqlite3 shop.rewind"))
        // The suggested why names the first payment, which the log says its tap caused.
        let line = try #require(result.standardOutput.split(separator: "\n").first { $0.contains("rewind why shop.rewind --at ") })
        let paid = try #require(Int64(line.split(separator: " ")[4]))
        let payment = try EventLog(path: folder.file("shop.rewind"), mode: .readOnly).event(at: paid)
        #expect(payment.actionCase == "checkout.paymentSucceeded" && payment.cause != nil && !payment.isRoot)

        let log = try EventLog(path: folder.file("shop.rewind"), mode: .readOnly)
        #expect(try log.checkIntegrity().isSound)
        #expect(try log.seqRange() == 1...40)
        let session = try #require(try log.sessions().first)
        #expect(session.app.id == "com.example.shop")
        #expect(try log.snapshotIndex(session: session.id).map(\.seq) == [0, 25])
    }

    @Test("a short demo takes a snapshot every interval; a long one spaces them by the budget, and verifies")
    func longDemoBudgetsSnapshots() async throws {
        let folder = try TemporaryDirectory()
        let rewind = builtProduct("rewind")
        #expect(try await run(rewind, ["demo", "--quiet", "--actions", "2000", "--output", "short.rewind"], in: folder.path).status == 0)
        #expect(try await run(rewind, ["demo", "--quiet", "--actions", "20000", "--output", "long.rewind"], in: folder.path).status == 0)
        let short = try EventLog(path: folder.file("short.rewind"), mode: .readOnly).snapshotIndex(session: 1).map(\.seq)
        #expect(short == Array(stride(from: 0, through: 2_000, by: 25)))
        let long = try EventLog(path: folder.file("long.rewind"), mode: .readOnly).snapshotIndex(session: 1).map(\.seq)
        #expect(long.count > 20 && long.count < 20_000 / 25, "\(long.count) snapshots")
        // (Where they fall depends on how far the writer lags at full speed: the budget's
        // forecast follows what the writer has weighed; see Tools/rewind-bench/README.md.)
        let verify = try await run(rewind, ["verify", "long.rewind"], in: folder.path)
        #expect(verify.status == 0 && verify.standardOutput.contains("reproduces all \(long.count - 1) recorded snapshots"), "\(verify.standardOutput)")
    }

    @Test("the demo records under the shop's redaction: no payment receipt in the log, an export or a shrink fixture; verify names the scrubbed field")
    func recordsUnderRedaction() async throws {
        let folder = try TemporaryDirectory()
        let rewind = builtProduct("rewind")
        #expect(try await run(rewind, ["demo", "--quiet", "--actions", "200", "--output", "shop.rewind"], in: folder.path).status == 0)
        let timeline = try await run(rewind, ["log", "shop.rewind"], in: folder.path).standardOutput
        #expect(timeline.contains("checkout.paymentSucceeded"), "the session paid for orders, so receipts were handled")
        #expect(timeline.contains("(redacted: fields)"))
        let verify = try await run(rewind, ["verify", "shop.rewind"], in: folder.path)
        #expect(verify.status == 0, "\(verify.standardOutput)")
        #expect(verify.standardOutput.contains("scrubbed by redaction before comparing (not compared): checkout.orders[].receipt"))
        #expect(try await run(rewind, ["export", "shop.rewind", "--output", "shop.jsonl"], in: folder.path).status == 0)
        let shrink = try await run(rewind, ["shrink", "shop.rewind", "--where", "cart.total < 0", "--output", "fixture.rewind"], in: folder.path)
        #expect(shrink.status == 0, "\(shrink.standardOutput)\(shrink.standardError)")
        for file in ["shop.rewind", "shop.jsonl", "fixture.rewind"] {
            let bytes = try #require(fileBytes(folder.file(file)), "\(file)")
            #expect(bytes.range(of: Data("rcpt-".utf8)) == nil, "\(file) holds a receipt")
        }
    }

    @Test("the same seed records the same session")
    func reproducible() async throws {
        let folder = try TemporaryDirectory()
        for name in ["a.rewind", "b.rewind"] {
            let result = try await run(builtProduct("rewind"), ["demo", "--quiet", "--seed", "3", "--output", name], in: folder.path)
            #expect(result.status == 0, "\(result.standardError)")
        }
        var first = try EventLog(path: folder.file("a.rewind"), mode: .readOnly).events()
        var second = try EventLog(path: folder.file("b.rewind"), mode: .readOnly).events()
        let a = try first.collect(), b = try second.collect()
        #expect(a.map(\.payload) == b.map(\.payload))
        #expect(a.map(\.source) == b.map(\.source))
    }

    @Test("running again replaces its own log, but refuses to overwrite anything else")
    func protectsOtherFiles() async throws {
        let folder = try TemporaryDirectory()
        let demo = try await run(builtProduct("rewind"), ["demo", "--quiet"], in: folder.path)
        let again = try await run(builtProduct("rewind"), ["demo", "--quiet"], in: folder.path)
        #expect(demo.status == 0 && again.status == 0)
        #expect(try EventLog(path: folder.file("rewind-demo.rewind"), mode: .readOnly).sessions().count == 1)

        let notes = folder.file("notes.txt")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: notes))
        let refused = try await run(builtProduct("rewind"), ["demo", "--output", notes], in: folder.path)
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("notes.txt exists and is not a demo log"))
        #expect(fileBytes(notes) == Data("keep me".utf8))
    }

    @Test("the rewind binary copied alone to another folder still creates and reads logs")
    func binaryWithoutResourceBundle() async throws {
        let folder = try TemporaryDirectory()
        let copy = folder.file("rewind")
        try FileManager.default.copyItem(atPath: builtProduct("rewind"), toPath: copy)
        // Nothing but the binary: no resource bundles beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["rewind"])
        let result = try await run(copy, ["demo", "--quiet", "--output", "alone.rewind"], in: folder.path)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try EventLog(path: folder.file("alone.rewind"), mode: .readOnly).schemaVersion() == EventLog.latestSchemaVersion)
    }
}
