import Rewind
import RewindTestSupport
import Testing

@Suite("StoreProjection")
struct StoreProjectionTests {
    struct App: Equatable, Sendable {
        var left = Counter()
        var right = Counter()
    }

    enum AppAction: Equatable, Sendable {
        case left(CounterAction)
        case right(CounterAction)
        var left: CounterAction? { if case let .left(action) = self { action } else { nil } }
        var right: CounterAction? { if case let .right(action) = self { action } else { nil } }
    }

    static let appReducer = Reducer<App, AppAction>.combine(
        counterReducer.lift(state: \App.left, action: \AppAction.left),
        counterReducer.lift(state: \App.right, action: \AppAction.right)
    )

    @Test("a projection reads its part of the state and dispatches wrapped actions with its caller's source")
    func projectsStateAndActions() {
        let sources = Recorded<DispatchedAction<AppAction>>()
        let store = Store(
            initialState: App(),
            reducer: Self.appReducer,
            middleware: Middleware(didReduce: { dispatched, _, _ in sources.append(dispatched) })
        )
        let left = store.scope(state: \.left, action: AppAction.left)
        let line: UInt = #line + 1
        left.dispatch(.add(3))
        #expect(left.state.count == 3)
        #expect(store.state == App(left: Counter(count: 3), right: Counter()))
        #expect(sources.all.first?.action == .left(.add(3)))
        #expect(sources.all.first?.source.line == line)
        #expect(sources.all.first?.source.file == "RewindTests/StoreProjectionTests.swift")
    }

    @Test("projections scope further and observe only their part")
    func nestedScopeAndObservation() async {
        let store = Store(initialState: App(), reducer: Self.appReducer)
        let right = store.scope(state: \.right, action: AppAction.right)
        let rightCount = right.scope(state: \.count, action: { (action: CounterAction) in action })
        let seen = Recorded<Int>()
        let observation = rightCount.observe { seen.append($0) }
        let stream = rightCount.states

        rightCount.dispatch(.increment)
        store.dispatch(.left(.increment))
        rightCount.dispatch(.add(2))
        observation.cancel()

        #expect(rightCount.state == 3)
        #expect(seen.all == [1, 1, 3])
        var streamed: [Int] = []
        for await value in stream {
            streamed.append(value)
            if streamed.count == 4 { break }
        }
        #expect(streamed == [0, 1, 1, 3])
    }
}
