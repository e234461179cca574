import Foundation
import Rewind
import RewindExamples
import RewindLog
import RewindTestSupport
import Testing

@Suite("Inspector over hard logs: unreadable, gaps, encrypted, recording")
struct InspectorLogTests {
    @Test("a log it cannot read answers every call with the CLI's own message (422), and nothing traps")
    func unreadableLogs() async throws {
        let folder = try TemporaryDirectory()
        let notALog = folder.file("notes.txt")
        try Data("not a log at all, just text\n".utf8).write(to: URL(fileURLWithPath: notALog))
        let empty = folder.file("empty.rewind")
        try Data().write(to: URL(fileURLWithPath: empty))
        let missing = folder.file("missing.rewind")
        for path in [notALog, empty, missing] {
            let inspector = InspectorHarness(path: path)
            let cli = try await run(builtProduct("rewind"), ["state", path, "--at", "1"])
            #expect(cli.status == 2)
            for call in ["/api/overview", "/api/head", "/api/events", "/api/state?at=1", "/api/bisect?invariant=non-negative-total", "/api/verify", "/api/shrink?invariant=x"] {
                let error = try await inspector.error(call, status: 422)
                #expect(cli.standardError.contains(error), "\(call): the API says '\(error)', the CLI '\(cli.standardError)'")
            }
        }
    }

    @Test("a log of an app this tool does not know: the timeline and events work, replaying says which tool to build")
    func unknownApp() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("other.rewind")
        let log = try EventLog(path: path)
        let recorder = Recorder<ShopState, ShopAction>(log: log, app: AppIdentity(id: "com.example.unknown"))
        let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
        for index in 0..<5 { store.dispatch(.cart(.add(productID: "p\(index)", quantity: 1))) }
        try await recorder.close()
        let inspector = InspectorHarness(path: path)
        let app = try #require((try await inspector.json("/api/overview")["apps"] as? [[String: Any]])?.first)
        #expect(app["replayable"] as? Bool == false)
        #expect(try await inspector.page("").seqs == [1, 2, 3, 4, 5])
        let error = try await inspector.error("/api/state?at=3", status: 400)
        #expect(error.contains("recorded by the app 'com.example.unknown', which this tool does not know"))
    }

    @Test("a recorded gap: the overview's session names it, verify reports it and still agrees")
    func gaps() async throws {
        let (folder, path) = try logWithRecordedGap()
        defer { withExtendedLifetime(folder) {} }
        let inspector = InspectorHarness(path: path)
        let sessions = try #require(try await inspector.json("/api/overview")["sessions"] as? [[String: Any]])
        #expect(sessions.count == 2)
        let gap = try #require(sessions.first?["gap"] as? [String: Any])
        #expect(gap["lost"] as? Int == 5)
        let verify = try await inspector.json("/api/verify")
        #expect(verify["agrees"] as? Bool == true)
        #expect((verify["gaps"] as? [Any])?.count == 1)
    }

    @Test("an encrypted log: with serve's key every call opens payloads; without it the timeline still reads and replaying names the key")
    func encrypted() async throws {
        let folder = try TemporaryDirectory()
        let path = try await demoLog(in: folder, arguments: ["--key-file", "demo.keys"])
        let keys = folder.file("demo.keys")
        let keyed = InspectorHarness(path: path, keyFile: keys)
        let event = try await keyed.json("/api/event?at=12")
        #expect((event["payload"] as? [String: Any]) != nil, "\(event)")
        #expect(try await keyed.json("/api/bisect?invariant=non-negative-total")["seq"] as? Int == 12)
        let page = try await keyed.json("/api/events?limit=1")
        #expect(((page["events"] as? [[String: Any]])?.first?["payload"] as? [String: Any]) != nil)

        let keyless = InspectorHarness(path: path)
        let sealed = try await keyless.json("/api/events?limit=1")
        #expect(((sealed["events"] as? [[String: Any]])?.first?["payload"] as? String)?.hasPrefix("<encrypted: ") == true)
        let error = try await keyless.error("/api/state?at=12", status: 422)
        #expect(error.contains("key 'demo'"), "\(error)")
        let wrong = InspectorHarness(path: path, keyFile: folder.file("none.keys"))
        #expect(try await wrong.error("/api/head", status: 400).contains("--key-file"))
    }

    @Test("live: while a recorder appends, the head moves and the next page holds the new events")
    func live() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("live.rewind")
        let log = try EventLog(path: path)
        let recorder = Recorder<ShopState, ShopAction>(log: log, app: AppIdentity(id: "com.example.shop"))
        let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
        let inspector = InspectorHarness(path: path)
        var last: Int64 = 0
        for round in 1...5 {
            for index in 0..<(round * 7) { store.dispatch(.cart(.add(productID: "p\(index % 4)", quantity: 1))) }
            try await recorder.flush()
            let head = try await inspector.json("/api/head")
            let seqs = try #require(head["seqs"] as? [Int])
            #expect(seqs.last.map(Int64.init) == last + Int64(round * 7))
            let page = try await inspector.page("after=\(last)&limit=1000")
            #expect(page.seqs == Array((last + 1)...(last + Int64(round * 7))))
            last += Int64(round * 7)
            // A state at the newest step replays what was just recorded.
            let state = try await inspector.json("/api/state?at=\(last)")
            #expect(((state["state"] as? [String: Any])?["cart"] as? [String: Any])?["lines"] != nil)
        }
        try await recorder.close()
    }
}
