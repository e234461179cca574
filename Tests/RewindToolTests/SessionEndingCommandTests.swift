import Foundation
import Rewind
import RewindExamples
import RewindLog
import RewindTestSupport
import Testing

/// `rewind sessions` says how each session ended, as the built binary prints it.
@Suite("rewind sessions: how each session ended")
struct SessionEndingCommandTests {
    @Test("a session ended by suspension, one closed and one still recorded, in the table and in --json")
    func endings() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("shop.rewind")
        let recorder = Recorder<ShopState, ShopAction>(into: .file(path), app: AppIdentity(id: "com.example.shop"))
        let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
        store.dispatch(.cart(.add(productID: "tea", quantity: 1)))
        try await recorder.suspend()
        recorder.resume()
        store.dispatch(.cart(.add(productID: "mug", quantity: 1)))
        try await recorder.close()
        // A third, recorded by a writer that is still open.
        let live = try EventLog(path: path)
        _ = try live.beginSession(app: AppIdentity(id: "com.example.widget"), initialState: 0)

        let json = try await run(builtProduct("rewind"), ["sessions", path, "--json"], in: folder.path)
        #expect(json.status == 0, "\(json.standardError)")
        let sessions = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [[String: Any]])
        #expect(sessions.map { ($0["ending"] as? [String: Any])?["kind"] as? String } == ["suspended", "closed", nil])
        #expect(sessions.map { ($0["ending"] as? [String: Any])?["seq"] as? Int } == [1, 2, nil])

        let text = try await run(builtProduct("rewind"), ["sessions", path], in: folder.path)
        #expect(text.status == 0, "\(text.standardError)")
        let rows = text.standardOutput.split(separator: "\n")
        #expect(rows.first?.hasSuffix("ended") == true, "\(text.standardOutput)")
        #expect(rows.dropFirst().map { $0.split(separator: " ").last.map(String.init) } == ["suspended", "closed", "—"], "\(text.standardOutput)")
    }

    @Test("a hung session in the table and its mark's line; control characters a lock file carried are shown escaped")
    func hung() async throws {
        let folder = try TemporaryDirectory()
        let mark = HangMark(
            actionCase: "cart.checkout\u{1B}[2J", source: ActionSource(file: "Shop/CartView.swift", function: "pay()", line: 42, column: 9),
            began: 1_795_813_821.25, detected: 1_795_813_823.5, limit: 2, processID: 42
        )
        try CrashMarkBytes.crashedLog(at: folder.file("hung.rewind"), mark: mark.bytes).close()
        let result = try await run(builtProduct("rewind"), ["sessions", folder.file("hung.rewind")])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("hung (cart.checkout\\u{1B}[2J)"), "\(result.standardOutput)")
        #expect(result.standardOutput.contains("session 1 hung: inside cart.checkout\\u{1B}[2J for over 2.2 s (Shop/CartView.swift:42)"))
        #expect(!result.standardOutput.contains("\u{1B}"))
    }
}
