import Rewind
import RewindTestSupport
import Testing

// The README's five-minute tour and the middleware and features of The timeline (Rewind's
// DocC), kept compiling and true. Names match theirs.
@Suite("README tour")
struct ReadmeTourTests {
    struct TourCounter: Codable, Equatable, Sendable {
        var count = 0
    }

    enum TourAction: Codable, Equatable, Sendable {
        case increment
        case add(Int)
        case reset
    }

    static let counterReducer = Reducer<TourCounter, TourAction> { state, action in
        switch action {
        case .increment: state.count += 1
        case let .add(amount): state.count += amount
        case .reset: state.count = 0
        }
    }

    struct AppState: Equatable, Sendable {
        var counter = TourCounter()
        var settings = TourCounter()
    }

    enum AppAction: Equatable, Sendable {
        case counter(TourAction)
        case settings(TourAction)
        var counter: TourAction? { if case let .counter(a) = self { a } else { nil } }
        var settings: TourAction? { if case let .settings(a) = self { a } else { nil } }
    }

    @Test("dispatch, state and observation as the tour shows them")
    func basics() {
        let store = Store(initialState: TourCounter(), reducer: Self.counterReducer)
        let seen = Recorded<Int>()
        let observation = store.observe { state in seen.append(state.count) }
        store.dispatch(.increment)
        store.dispatch(.add(5), info: "bulk")
        #expect(store.state.count == 6)
        #expect(seen.all == [1, 6])
        observation.cancel()
    }

    @Test("the auto-reset effect feeds .reset back once the count passes 100")
    func middlewareAndEffects() async {
        let logged = Recorded<String>()
        let logger = Middleware<TourCounter, TourAction>(didReduce: { dispatched, state, _ in
            logged.append("\(dispatched.action) → \(state.count)")
        })
        let autoReset = Middleware<TourCounter, TourAction>(didReduce: { _, state, context in
            guard state.count > 100 else { return }
            context.run(.run(id: "reset", cancelInFlight: true) { send in
                send(.reset)
            })
        })
        let store = Store(
            initialState: TourCounter(),
            reducer: Self.counterReducer,
            middleware: .combine(logger, autoReset),
            onEffectFailure: { failure in Issue.record("\(failure)") }
        )
        store.dispatch(.add(101))
        await store.waitUntilIdle()
        #expect(store.state.count == 0)
        #expect(logged.all == ["add(101) → 101", "reset → 0"])
    }

    @Test("lifting and scoping as the tour shows them")
    func composition() {
        let appReducer = Reducer<AppState, AppAction>.combine(
            Self.counterReducer.lift(state: \AppState.counter, action: \AppAction.counter),
            Self.counterReducer.lift(state: \AppState.settings, action: \AppAction.settings)
        )
        let appStore = Store(initialState: AppState(), reducer: appReducer)
        let counterStore = appStore.scope(state: \.counter, action: AppAction.counter)
        counterStore.dispatch(.increment)
        #expect(appStore.state == AppState(counter: TourCounter(count: 1), settings: TourCounter()))
    }
}
