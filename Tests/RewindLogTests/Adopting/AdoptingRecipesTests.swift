import Foundation
import Rewind
import RewindExamples
import RewindLog
import RewindTestSupport
import Testing

/// The "Adopting Rewind in an app" recipes, each driving its store's look-alike through a shop
/// session: every action the store reduced is in the log, in its order, with the source the
/// recipe promises, and the log replays to the store's state.
@Suite("Adopting Rewind in an app: the recipes")
struct AdoptingRecipesTests {
    static let app = AppIdentity(id: "com.example.shop")

    /// A recorder into a new file, the default configuration.
    static func recorder(in folder: TemporaryDirectory) -> Recorder<ShopState, ShopAction> {
        Recorder(at: folder.file("shop.rewind"), app: app)
    }

    /// What the recipe recorded, once closed: the events and the replayed state.
    static func recorded(_ recorder: Recorder<ShopState, ShopAction>, in folder: TemporaryDirectory) throws -> ([LoggedEvent], ShopState?) {
        try recorder.close()
        let log = try EventLog(path: folder.file("shop.rewind"), mode: .readOnly)
        var cursor = log.events()
        return (try cursor.collect(), try log.restoredState(app: app, reducer: Shop.reducer))
    }

    /// A customer's actions (effects' included, as the live app reduced them).
    static func actions() async -> [ShopAction] {
        await Shop.sessionActions(count: 300, seed: 11).map(\.action)
    }

    @Test("SwiftRex: a middleware records each action after the reducer, with SwiftRex's dispatch site")
    func swiftRex() async throws {
        let folder = try TemporaryDirectory()
        let recorder = Self.recorder(in: folder)
        let store = SwiftRex.ReduxStoreBase(
            initialState: ShopState(), reducer: { action, state in Shop.reducer(&state, action) },
            middleware: RecordingMiddleware(recorder: recorder)
        )
        let actions = await Self.actions()
        for action in actions { store.dispatch(action, info: "test") }
        let (events, replayed) = try Self.recorded(recorder, in: folder)
        #expect(events.map(\.actionCase) == actions.map { ActionCaseName.of($0) })
        #expect(events.allSatisfy { $0.source.file.hasSuffix("/AdoptingRecipesTests.swift") && $0.source.info == "test" }, "\(events.first?.source as Any)")
        #expect(replayed == store.state)
    }

    @Test("TCA: the recorded root reducer records every action, effects' too; a view's send(_:from:) gives its site")
    @MainActor
    func composableArchitecture() async throws {
        let folder = try TemporaryDirectory()
        let recorder = Self.recorder(in: folder)
        let store = ComposableArchitecture.Store(initialState: ShopState()) {
            RecordingReducer(base: ShopFeature(), tap: recorder.tap(initialState: ShopState()))
        }
        let actions = await Self.actions()
        for (index, action) in actions.enumerated() {
            if index.isMultiple(of: 2) { store.send(action) } else { store.send(action, from: ActionSource()) }
        }
        let (events, replayed) = try Self.recorded(recorder, in: folder)
        // ShopFeature's effect follows each `cart.clear` with a `cart.removeDiscount`.
        let clears = actions.filter { $0 == .cart(.clear) }.count
        #expect(clears > 0)
        #expect(events.count == actions.count + clears)
        let fromViews = events.filter { $0.source.file == "RewindLogTests/AdoptingRecipesTests.swift" }
        #expect(fromViews.count == actions.count / 2 && fromViews.allSatisfy { $0.source.function == "composableArchitecture()" })
        #expect(events.filter { $0.source.info == "sent by an effect" }.count == actions.count - actions.count / 2 + clears)
        #expect(replayed == store.state)
    }

    @Test("ReSwift: a middleware records the app's actions, not ReSwift's own, after the reducer")
    func reSwift() async throws {
        let folder = try TemporaryDirectory()
        let recorder = Self.recorder(in: folder)
        let store = ReSwift.Store<ShopState>(
            reducer: { action, state in
                var state = state ?? ShopState()
                if let action = action as? ShopAction { Shop.reducer(&state, action) }
                return state
            },
            state: nil,
            middleware: [recording(into: recorder, initialState: ShopState())]
        )
        let actions = await Self.actions()
        for action in actions { store.dispatch(action) }
        let (events, replayed) = try Self.recorded(recorder, in: folder)
        #expect(events.map(\.actionCase) == actions.map { ActionCaseName.of($0) }, "ReSwiftInit is not the app's")
        #expect(events.allSatisfy { $0.source.info == "ReSwift" })
        #expect(replayed == store.state)
    }

    @Test("a view model: each send records its caller's site")
    func viewModel() async throws {
        let folder = try TemporaryDirectory()
        let recorder = Self.recorder(in: folder)
        let model = ShopModel(recorder: recorder)
        let actions = await Self.actions()
        for action in actions { model.send(action) }
        let (events, replayed) = try Self.recorded(recorder, in: folder)
        #expect(events.map(\.actionCase) == actions.map { ActionCaseName.of($0) })
        #expect(events.allSatisfy { $0.source.file == "RewindLogTests/AdoptingRecipesTests.swift" && $0.source.function == "viewModel()" })
        #expect(replayed == model.state)
    }
}

/// The shop as a TCA feature: the shop's reducer, and one effect (a cleared cart drops its
/// discount) so that the recipe records effects' actions too.
struct ShopFeature: ComposableArchitecture.Reducer {
    func reduce(into state: inout ShopState, action: ShopAction) -> ComposableArchitecture.Effect<ShopAction> {
        Shop.reducer(&state, action)
        return action == .cart(.clear) ? .send(.cart(.removeDiscount)) : .none
    }
}
