import Foundation
import Rewind
import RewindExamples
import RewindLog
import RewindReplay
import RewindTestSupport
import Testing

/// `Store(restoring:at:)`: a store that starts at a recorded moment.
@Suite("A store restored from a log")
struct RestoringStoreTests {
    static let app = AppIdentity(id: "com.example.shop")

    static func recorded(in folder: TemporaryDirectory, seed: UInt64 = 5) async throws -> (EventLog, RecordedSession<ShopState, ShopAction>) {
        let log = try EventLog(path: folder.file("shop.rewind"))
        let session = try await recordSession(
            into: log, app: app, initialState: ShopState(), reducer: Shop.reducer,
            effects: Shop.effects(environment: .simulated), user: Shopper(seed: seed), actions: 200
        )
        return (log, session)
    }

    @Test("at a seq: the live state after that event; the restored store goes on as the live one did")
    func atSeq() async throws {
        let folder = try TemporaryDirectory()
        let (log, session) = try await Self.recorded(in: folder)
        for seq in [1, 57, 120, 200] as [Int64] {
            let store = try Store(restoring: log, at: seq, reducer: Shop.reducer)
            #expect(store.state == session.states[Int(seq) - 1], "seq \(seq)")
        }
        let store = try Store(restoring: log, at: 120, reducer: Shop.reducer)
        for dispatched in session.reduced[120...] { store.dispatch(dispatched.action, from: dispatched.source) }
        #expect(store.state == session.states.last)
    }

    @Test("without a seq: the latest session's last state, or the initial state of a latest session without events")
    func latest() async throws {
        let folder = try TemporaryDirectory()
        let (log, session) = try await Self.recorded(in: folder)
        #expect(try Store(restoring: log, reducer: Shop.reducer).state == session.states.last)
        var fresh = ShopState()
        fresh.cart.discount = Discount.samples[0]
        _ = try log.beginSession(app: Self.app, initialState: fresh)
        #expect(try Store(restoring: log, reducer: Shop.reducer).state == fresh)
    }

    @Test("from a report: an exported session, imported, restores the same state")
    func fromReport() async throws {
        let folder = try TemporaryDirectory()
        let (log, session) = try await Self.recorded(in: folder)
        let report = URL(fileURLWithPath: folder.file("bug.jsonl"))
        _ = try log.export(to: report)
        let imported = try EventLog.importLog(from: report, to: folder.file("imported.rewind"))
        #expect(try Store(restoring: imported, at: 90, reducer: Shop.reducer).state == session.states[89])
    }

    @Test("a seq the log does not hold, and a log without sessions, are errors that say so")
    func errors() async throws {
        let folder = try TemporaryDirectory()
        let (log, _) = try await Self.recorded(in: folder)
        let beyond = #expect(throws: EventLogError.self) { try Store(restoring: log, at: 201, reducer: Shop.reducer) }
        #expect(beyond.map { "\($0)" }?.contains("201") == true, "\(beyond as Any)")
        let empty = try EventLog(path: folder.file("empty.rewind"))
        do {
            _ = try Store(restoring: empty, reducer: Shop.reducer)
            Issue.record("an empty log restored a store")
        } catch {
            #expect("\(error)".contains("no session to restore"), "\(error)")
        }
    }
}
