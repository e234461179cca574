import Foundation
import Rewind
import RewindExamples
import RewindLog
import RewindReplay
import RewindTestSupport
import Testing

@Suite("Replayer schema drift")
struct ReplayerSchemaDriftTests {
    /// The shop's action type as an earlier build had it: no checkout yet.
    enum EarlierShopAction: Codable, Sendable {
        case catalogue(CatalogueAction)
        case cart(CartAction)
    }

    /// A log of two sessions recorded with the earlier action type.
    static func record(at path: String) throws -> EventLog {
        let log = try EventLog(path: path)
        for _ in 0..<2 {
            let session = try log.beginSession(
                app: AppIdentity(id: "com.example.shop"), initialState: ShopState(),
                shapes: SessionShapes(action: TypeShape.of(EarlierShopAction.self), state: TypeShape.of(ShopState.self))
            )
            try log.append((0..<3).map { _ in EventRecord(ShopAction.cart(.clear), source: ActionSource()) }, to: session)
        }
        return log
    }

    @Test("a replayer reports each session's drift once, however often it reads it; nil stays silent")
    func reportedOncePerSession() throws {
        let folder = try TemporaryDirectory()
        let log = try Self.record(at: folder.file("shop.rewind"))
        let reported = Recorded<SchemaDrift>()
        var options = ReplayOptions()
        options.onSchemaDrift = reported.append
        let replayer = Replayer(log: log, reducer: Shop.reducer, options: options)
        _ = try replayer.state(at: 2)
        _ = try replayer.finalState(session: 1)
        _ = try replayer.copy().state(at: 3)
        #expect(try replayer.verify(session: 1).divergence == nil)
        #expect(reported.all.map(\.session) == [1])
        #expect(reported.all.first?.changes.map(\.description) == ["ShopAction: case `checkout(_0: CheckoutAction)` added"])
        _ = try replayer.finalState(session: 2)
        #expect(reported.all.map(\.session) == [1, 2])
        #expect(try replayer.schemaDrift(session: 2) == [reported.all[1]])

        options.onSchemaDrift = nil
        let silent = Replayer(log: log, reducer: Shop.reducer, options: options)
        _ = try silent.finalState(session: 1)
        #expect(reported.all.count == 2)
        #expect(try silent.schemaDrift(session: 1).count == 1, "asked, it still answers")
    }

    @Test("a version bump accounts for a change that needs no upcaster; none is reported")
    func bumpedVersion() throws {
        let folder = try TemporaryDirectory()
        let log = try Self.record(at: folder.file("shop.rewind"))
        let reported = Recorded<SchemaDrift>()
        var options = ReplayOptions()
        options.onSchemaDrift = reported.append
        options.upgrades = SchemaUpgrades(app: AppIdentity(id: "com.example.shop", actionSchemaVersion: 2), upcaster: .none)
        _ = try Replayer(log: log, reducer: Shop.reducer, options: options).finalState(session: 1)
        #expect(reported.all.isEmpty)
    }
}

extension Replayer {
    /// A copy, as a caller passing the replayer around makes.
    func copy() -> Self { self }
}
