import Rewind
import RewindTestSupport
import Testing

@Suite("Effects")
struct EffectTests {
    /// A middleware that starts whatever effect `make` returns for each action.
    static func effects(
        _ make: @escaping @Sendable (CounterAction) -> Effect<CounterAction>
    ) -> Middleware<Counter, CounterAction> {
        Middleware(didReduce: { dispatched, _, context in context.run(make(dispatched.action)) })
    }

    @Test("an effect feeds actions back, each with the source of its send, marked as effect")
    func runFeedsActionsBack() async {
        let sources = Recorded<ActionSource>()
        let sendLine = Recorded<UInt>()
        let store = Store(
            initialState: Counter(),
            reducer: counterReducer,
            middleware: .combine(
                Self.effects { action in
                    guard action == .increment else { return .none }
                    return .run { send in
                        sendLine.append(#line + 1)
                        send(.add(10))
                    }
                },
                Middleware(didReduce: { dispatched, _, _ in sources.append(dispatched.source) })
            )
        )
        store.dispatch(.increment)
        await store.waitUntilIdle()
        #expect(store.state.count == 11)
        let fed = try! #require(sources.all.last)
        #expect(fed.origin == .effect)
        #expect(fed.file == "RewindTests/EffectTests.swift")
        #expect(fed.line == sendLine.all.first)
    }

    @Test("send and merge dispatch right away, in order, behind the current action")
    func sendAndMerge() async {
        let store = Store(
            initialState: Counter(),
            reducer: counterReducer,
            middleware: Self.effects { action in
                guard action == .increment else { return .none }
                return .merge(.send(.note("one")), .none, .send(.note("two")))
            }
        )
        store.dispatch(.increment)
        #expect(store.state.log == ["one", "two"])
    }

    @Test("cancel(id:) stops a running effect before it feeds anything back")
    func cancelByID() async {
        let started = AsyncStream<Void>.makeStream()
        let store = Store(
            initialState: Counter(),
            reducer: counterReducer,
            middleware: Self.effects { action in
                switch action {
                case .increment:
                    return .run(id: "slow") { send in
                        started.continuation.yield()
                        try await Task.sleep(for: .seconds(60))
                        send(.note("finished"))
                    }
                case .decrement:
                    return .cancel(id: "slow")
                default:
                    return .none
                }
            }
        )
        store.dispatch(.increment)
        var iterator = started.stream.makeAsyncIterator()
        await iterator.next()
        #expect(store.runningEffectCount == 1)
        store.dispatch(.decrement)
        await store.waitUntilIdle()
        #expect(store.runningEffectCount == 0)
        #expect(store.state.log.isEmpty)
    }

    @Test("cancelInFlight replaces the running effect with the same id")
    func cancelInFlight() async {
        let gates = Recorded<AsyncStream<Void>.Continuation>()
        let store = Store(
            initialState: Counter(),
            reducer: counterReducer,
            middleware: Self.effects { action in
                guard case let .add(run) = action else { return .none }
                return .run(id: "search", cancelInFlight: true) { send in
                    let gate = AsyncStream<Void>.makeStream()
                    gates.append(gate.continuation)
                    for await _ in gate.stream {}
                    try Task.checkCancellation()
                    send(.note("run \(run) finished"))
                }
            }
        )
        store.dispatch(.add(1))
        store.dispatch(.add(2))
        // Wait until both runs are waiting at their gates, then open them.
        while gates.all.count < 2 { await Task.yield() }
        for gate in gates.all { gate.finish() }
        await store.waitUntilIdle()
        #expect(store.state.log == ["run 2 finished"])
    }

    @Test("an effect's error is reported with the source that started it; the store keeps working")
    func failureIsReported() async {
        struct Boom: Error, CustomStringConvertible { var description: String { "boom" } }
        let failures = Recorded<EffectFailure>()
        let runLine = Recorded<UInt>()
        let store = Store(
            initialState: Counter(),
            reducer: counterReducer,
            middleware: Self.effects { action in
                guard action == .increment else { return .none }
                runLine.append(#line + 1)
                return .run(id: "failing") { _ in throw Boom() }
            },
            onEffectFailure: { failures.append($0) }
        )
        store.dispatch(.increment)
        await store.waitUntilIdle()
        store.dispatch(.increment)
        await store.waitUntilIdle()

        #expect(store.state.count == 2)
        #expect(failures.all.count == 2)
        let failure = try! #require(failures.all.first)
        #expect(failure.source.file == "RewindTests/EffectTests.swift")
        #expect(failure.source.line == runLine.all.first)
        #expect(failure.id == "failing")
        #expect(failure.description.contains("failed: boom"))
    }

    @Test("cancellation is not reported as a failure")
    func cancellationIsNotAFailure() async {
        let failures = Recorded<EffectFailure>()
        let store = Store(
            initialState: Counter(),
            reducer: counterReducer,
            middleware: Self.effects { action in
                switch action {
                case .increment: .run(id: "x") { _ in try await Task.sleep(for: .seconds(60)) }
                case .decrement: .cancel(id: "x")
                default: .none
                }
            },
            onEffectFailure: { failures.append($0) }
        )
        store.dispatch(.increment)
        store.dispatch(.decrement)
        await store.waitUntilIdle()
        #expect(failures.all.isEmpty)
    }

    @Test("releasing the store cancels its effects")
    func storeReleaseCancelsEffects() async {
        let ended = AsyncStream<Bool>.makeStream()
        var store: Store<Counter, CounterAction>? = Store(
            initialState: Counter(),
            reducer: counterReducer,
            middleware: Self.effects { action in
                guard action == .increment else { return .none }
                return .run { _ in
                    do {
                        try await Task.sleep(for: .seconds(60))
                        ended.continuation.yield(false)
                    } catch {
                        ended.continuation.yield(Task.isCancelled)
                    }
                }
            }
        )
        store?.dispatch(.increment)
        weak let weakStore = store
        store = nil
        #expect(weakStore == nil)
        var iterator = ended.stream.makeAsyncIterator()
        #expect(await iterator.next() == true)
    }

    @Test("map wraps the actions of every kind of effect")
    func mapWrapsActions() async {
        enum Outer: Equatable, Sendable { case inner(CounterAction) }
        let received = Recorded<Outer>()
        let store = Store(
            initialState: 0,
            reducer: Reducer<Int, Outer> { _, action in received.append(action) }
        )
        let effect = Effect<CounterAction>.merge(
            .send(.note("sent")),
            .run { send in send(.note("ran")) }
        )
        store.run(effect.map(Outer.inner))
        await store.waitUntilIdle()
        #expect(received.all == [.inner(.note("sent")), .inner(.note("ran"))])
    }
}
