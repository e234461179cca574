import Rewind
import RewindTestSupport
import Synchronization
import Testing

@Suite("EffectMiddleware (SwiftRex style)")
struct EffectMiddlewareTests {
    // SwiftRex's counter, with a favourite-number service as the injected dependency.
    struct AppState: Equatable, Sendable {
        var count = 0
        var favourite: Int?
    }

    enum AppAction: Equatable, Sendable {
        case increment, decrement
        case fetchFavourite
        case favouriteLoaded(Int)
        case startTicking, stopTicking
        case tick
    }

    final class FavouriteService: Sendable {
        let calls = Mutex(0)
        let gate = AsyncStream<Void>.makeStream()
        func favourite() async -> Int {
            calls.withLock { $0 += 1 }
            return 42
        }
    }

    static let reducer = Reducer<AppState, AppAction> { state, action in
        switch action {
        case .increment: state.count += 1
        case .decrement: state.count -= 1
        case let .favouriteLoaded(number): state.favourite = number
        case .tick: state.count += 10
        case .fetchFavourite, .startTicking, .stopTicking: break
        }
    }

    static let effects = EffectMiddleware<AppState, AppAction, FavouriteService>.onAction { action, _, state in
        switch action {
        case .fetchFavourite:
            return .task(token: "favourite") { service in .favouriteLoaded(await service.favourite()) }
        case .increment where state().count == 3:
            return .just(.decrement)
        case .startTicking:
            return .run(token: "ticker", policy: .deduplicate) { service, send in
                for await _ in service.gate.stream { send(.tick) }
            }
        case .stopTicking:
            return .toCancel("ticker")
        default:
            return .doNothing
        }
    }

    @Test("the counter: actions, the state getter and the injected service give the exact state sequence")
    func counter() async {
        let service = FavouriteService()
        let store = Store(initialState: AppState(), reducer: Self.reducer, middleware: Self.effects.inject(service))
        let states = Recorded<AppState>()
        let observation = store.observe { states.append($0) }
        store.dispatch(.increment)
        store.dispatch(.increment)
        store.dispatch(.increment)   // count 3: the middleware answers .decrement
        store.dispatch(.fetchFavourite)
        await store.waitUntilIdle()
        observation.cancel()
        #expect(states.all == [
            AppState(count: 1), AppState(count: 2), AppState(count: 3), AppState(count: 2),
            AppState(count: 2), AppState(count: 2, favourite: 42),
        ])
        #expect(service.calls.withLock { $0 } == 1)
    }

    @Test("a token deduplicates a running effect, and toCancel stops it")
    func tokenDeduplicationAndCancellation() async {
        let service = FavouriteService()
        let store = Store(initialState: AppState(), reducer: Self.reducer, middleware: Self.effects.inject(service))
        store.dispatch(.startTicking)
        store.dispatch(.startTicking)   // dropped: one ticker is running
        #expect(store.runningEffectCount == 1)
        service.gate.continuation.yield()
        while store.state.count < 10 { await Task.yield() }
        store.dispatch(.stopTicking)
        await store.waitUntilIdle()
        #expect(store.runningEffectCount == 0)
        #expect(store.state.count == 10)   // one tick, from one ticker
    }

    @Test("just, sequence, fireAndForget, promise and merge, with sources marked as effects")
    func constructors() async {
        enum Action: Equatable, Sendable { case go, one, two, three, promised }
        let sideEffects = Recorded<String>()
        let middleware = EffectMiddleware<[Action], Action, String>.onAction { action, _, _ in
            guard action == .go else { return .doNothing }
            return .merge(
                .just(.one),
                .sequence([.two, .three]),
                .fireAndForget { greeting in sideEffects.append(greeting) },
                .promise { _, complete in complete(.promised) }
            )
        }
        let seen = Recorded<DispatchedAction<Action>>()
        let store = Store(
            initialState: [Action](),
            reducer: Reducer { state, action in state.append(action) },
            middleware: .combine(middleware.inject("hello"), Middleware(didReduce: { dispatched, _, _ in seen.append(dispatched) }))
        )
        store.dispatch(.go)
        await store.waitUntilIdle()
        #expect(Array(store.state.prefix(4)) == [.go, .one, .two, .three])
        #expect(store.state.last == .promised)
        #expect(sideEffects.all == ["hello"])
        #expect(seen.all.dropFirst().allSatisfy { $0.source.origin == .effect && $0.source.file == "RewindTests/EffectMiddlewareTests.swift" })
    }

    @Test("a run with cancelInFlight replaces the running one")
    func cancelInFlight() async {
        enum Action: Equatable, Sendable { case search(Int), found(Int) }
        let gates = Recorded<AsyncStream<Void>.Continuation>()
        let middleware = EffectMiddleware<[Int], Action, Void>.onAction { action, _, _ in
            guard case let .search(query) = action else { return .doNothing }
            return .run(token: "search", policy: .cancelInFlight) { _, send in
                let gate = AsyncStream<Void>.makeStream()
                gates.append(gate.continuation)
                for await _ in gate.stream {}
                try Task.checkCancellation()
                send(.found(query))
            }
        }
        let store = Store(initialState: [Int](), reducer: Reducer { state, action in if case let .found(n) = action { state.append(n) } },
                          middleware: middleware.inject(()))
        store.dispatch(.search(1))
        store.dispatch(.search(2))
        while gates.all.count < 2 { await Task.yield() }
        for gate in gates.all { gate.finish() }
        await store.waitUntilIdle()
        #expect(store.state == [2])
    }

    @Test("lifted onto a larger app, it sees its actions and its state only")
    func lifted() async {
        struct Big: Equatable, Sendable { var counter = AppState(); var other = 0 }
        enum BigAction: Equatable, Sendable {
            case counter(AppAction), other
            var counter: AppAction? { if case let .counter(a) = self { a } else { nil } }
        }
        let reducer = Reducer<Big, BigAction>.combine(
            Self.reducer.lift(state: \Big.counter, action: \BigAction.counter),
            Reducer { state, action in if action == .other { state.other += 1 } }
        )
        let store = Store(
            initialState: Big(), reducer: reducer,
            middleware: Self.effects.lift(state: \Big.counter, action: \BigAction.counter, embed: BigAction.counter).inject(FavouriteService())
        )
        store.dispatch(.counter(.fetchFavourite))
        store.dispatch(.other)
        await store.waitUntilIdle()
        #expect(store.state == Big(counter: AppState(count: 0, favourite: 42), other: 1))
    }
}
