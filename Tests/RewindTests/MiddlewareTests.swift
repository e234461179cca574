import Rewind
import RewindTestSupport
import Testing

@Suite("Middleware")
struct MiddlewareTests {
    @Test("sees the state before the reducer, then the state after")
    func seesStateBeforeAndAfter() {
        let events = Recorded<String>()
        let store = Store(
            initialState: Counter(),
            reducer: counterReducer,
            middleware: Middleware(
                willReduce: { dispatched, state, _ in events.append("will \(dispatched.action) at \(state.count)") },
                didReduce: { dispatched, state, _ in events.append("did \(dispatched.action) at \(state.count)") }
            )
        )
        store.dispatch(.add(3))
        store.dispatch(.increment)
        #expect(events.all == ["will add(3) at 0", "did add(3) at 3", "will increment at 3", "did increment at 4"])
    }

    @Test("actions a middleware dispatches are queued behind the current one, never re-entered")
    func dispatchFromMiddlewareIsQueued() {
        let events = Recorded<String>()
        let store = Store(
            initialState: Counter(),
            reducer: counterReducer,
            middleware: Middleware(
                willReduce: { dispatched, _, _ in events.append("will \(dispatched.action)") },
                didReduce: { dispatched, _, context in
                    events.append("did \(dispatched.action)")
                    if dispatched.action == .increment {
                        context.dispatch(.note("a"))
                        context.dispatch(.note("b"))
                        events.append("dispatched both")
                    }
                }
            )
        )
        store.dispatch(.increment)
        #expect(events.all == [
            "will increment", "did increment", "dispatched both",
            "will note(\"a\")", "did note(\"a\")", "will note(\"b\")", "did note(\"b\")",
        ])
        #expect(store.state.log == ["a", "b"])
    }

    @Test("a middleware's dispatch gets a source of its own, marked as middleware")
    func middlewareSourceIsMarked() {
        let sources = Recorded<ActionSource>()
        let line = Recorded<UInt>()
        let store = Store(
            initialState: Counter(),
            reducer: counterReducer,
            middleware: Middleware(didReduce: { dispatched, _, context in
                sources.append(dispatched.source)
                if dispatched.action == .increment {
                    line.append(#line + 1)
                    context.dispatch(.decrement, info: "undo")
                }
            })
        )
        store.dispatch(.increment)
        let fromMiddleware = try! #require(sources.all.last)
        #expect(fromMiddleware.origin == .middleware)
        #expect(fromMiddleware.file == "RewindTests/MiddlewareTests.swift")
        #expect(fromMiddleware.line == line.all.first)
        #expect(fromMiddleware.info == "undo")
        #expect(sources.all.first?.origin == .call)
    }

    @Test("combined middlewares run in order for each hook")
    func combineOrder() {
        let events = Recorded<String>()
        func named(_ name: String) -> Middleware<Counter, CounterAction> {
            Middleware(
                willReduce: { _, _, _ in events.append("\(name).will") },
                didReduce: { _, _, _ in events.append("\(name).did") }
            )
        }
        let store = Store(initialState: Counter(), reducer: counterReducer, middleware: .combine(named("a"), named("b")))
        store.dispatch(.increment)
        #expect(events.all == ["a.will", "b.will", "a.did", "b.did"])
    }

    @Test("bind runs once per store, so per-store state lives there")
    func bindOncePerStore() {
        let binds = Recorded<Int>()
        let counting = Middleware<Counter, CounterAction> { _ in
            binds.append(1)
            return .init()
        }
        let first = Store(initialState: Counter(), reducer: counterReducer, middleware: counting)
        let second = Store(initialState: Counter(), reducer: counterReducer, middleware: counting)
        for _ in 0..<10 {
            first.dispatch(.increment)
            second.dispatch(.increment)
        }
        #expect(binds.all.count == 2)
    }

    @Test("a lifted middleware sees only its actions and its sub-state, and dispatches wrapped actions")
    func liftedMiddleware() {
        struct App: Equatable, Sendable {
            var counter = Counter()
            var echoes = 0
        }
        enum AppAction: Equatable, Sendable {
            case counter(CounterAction)
            case echo
            var counter: CounterAction? { if case let .counter(action) = self { action } else { nil } }
        }
        let seen = Recorded<String>()
        let local = Middleware<Counter, CounterAction>(didReduce: { dispatched, state, context in
            seen.append("\(dispatched.action) \(state.count) \(context.state.count)")
            if dispatched.action == .increment { context.dispatch(.note("from local")) }
        })
        let reducer = Reducer<App, AppAction>.combine(
            counterReducer.lift(state: \App.counter, action: \AppAction.counter),
            Reducer { state, action in if action == .echo { state.echoes += 1 } }
        )
        let store = Store(
            initialState: App(),
            reducer: reducer,
            middleware: local.lift(state: \App.counter, action: \AppAction.counter, embed: AppAction.counter)
        )
        store.dispatch(.counter(.increment))
        store.dispatch(.echo)
        #expect(seen.all == ["increment 1 1", "note(\"from local\") 1 1"])
        #expect(store.state.counter.log == ["from local"])
        #expect(store.state.echoes == 1)
    }
}
