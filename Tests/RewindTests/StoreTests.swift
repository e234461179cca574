import Rewind
import RewindTestSupport
import Synchronization
import Testing

@Suite("Store")
struct StoreTests {
    /// What each reduction saw: who sent the action, its per-sender number, and the count after.
    struct Tagged: Codable, Equatable, Sendable {
        var sender: Int
        var number: Int
    }

    struct Ledger: Equatable, Sendable {
        var reduced: [Tagged] = []
    }

    static let ledgerReducer = Reducer<Ledger, Tagged> { state, action in state.reduced.append(action) }

    @Test("an idle store has reduced an action by the time dispatch returns")
    func synchronousWhenIdle() {
        let store = Store(initialState: Counter(), reducer: counterReducer)
        store.dispatch(.increment)
        #expect(store.state.count == 1)
        store.dispatch(.add(41))
        #expect(store.state.count == 42)
    }

    @Test(
        "under concurrent dispatch every action reduces exactly once, in order per dispatcher, and middleware sees the reducer's order",
        arguments: [1, 2, 3]
    )
    func concurrentDispatch(round: Int) async {
        let senders = 16, perSender = 2_000
        let middlewareOrder = Recorded<Tagged>()
        let store = Store(
            initialState: Ledger(),
            reducer: Self.ledgerReducer,
            middleware: Middleware(didReduce: { dispatched, state, _ in
                // The state after must end with exactly this action: hooks and reducer share one timeline.
                precondition(state.reduced.last == dispatched.action)
                middlewareOrder.append(dispatched.action)
            })
        )
        await withTaskGroup(of: Void.self) { group in
            for sender in 0..<senders {
                group.addTask {
                    for number in 0..<perSender {
                        store.dispatch(Tagged(sender: sender, number: number))
                    }
                }
            }
        }
        await store.waitUntilIdle()

        let reduced = store.state.reduced
        #expect(reduced.count == senders * perSender)
        #expect(Set(reduced.map { "\($0.sender)/\($0.number)" }).count == senders * perSender)
        for sender in 0..<senders {
            let numbers = reduced.filter { $0.sender == sender }.map(\.number)
            #expect(numbers == Array(0..<perSender), "sender \(sender) reduced out of order")
        }
        #expect(middlewareOrder.all == reduced)
    }

    @Test("observers see every state in timeline order under concurrent dispatch")
    func observersSeeConsistentSequence() async {
        let store = Store(initialState: Counter(), reducer: counterReducer)
        let observed = Recorded<Int>()
        let observation = store.observe { observed.append($0.count) }
        let stream = store.states

        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { for _ in 0..<1_000 { store.dispatch(.increment) } }
            }
        }
        await store.waitUntilIdle()
        observation.cancel()

        #expect(observed.all == Array(1...8_000))
        var streamed: [Int] = []
        for await state in stream {
            streamed.append(state.count)
            if state.count == 8_000 { break }
        }
        #expect(streamed == Array(0...8_000))
    }

    @Test("a dispatch from inside a reducer is queued, not re-entered")
    func reducerDispatchIsQueued() {
        final class Box: Sendable {
            let store = Mutex<Store<Counter, CounterAction>?>(nil)
        }
        let box = Box()
        let events = Recorded<String>()
        let reducer = Reducer<Counter, CounterAction> { state, action in
            events.append("reduce \(action)")
            counterReducer(&state, action)
            if action == .increment {
                box.store.withLock { $0 }?.dispatch(.note("queued"))
                events.append("after nested dispatch, count \(state.count)")
            }
        }
        let store = Store(initialState: Counter(), reducer: reducer)
        box.store.withLock { $0 = store }
        store.dispatch(.increment)
        #expect(events.all == ["reduce increment", "after nested dispatch, count 1", "reduce note(\"queued\")"])
        #expect(store.state == Counter(count: 1, log: ["queued"]))
        box.store.withLock { $0 = nil }
    }

    @Test("an observer that dispatches is queued behind the current action")
    func observerDispatch() {
        let store = Store(initialState: Counter(), reducer: counterReducer)
        let observation = store.observe { state in
            if state.count == 1 && state.log.isEmpty { store.dispatch(.note("seen 1")) }
        }
        store.dispatch(.increment)
        #expect(store.state.log == ["seen 1"])
        observation.cancel()
    }

    @Test("a cancelled or released observation stops its calls")
    func observationEnds() {
        let store = Store(initialState: Counter(), reducer: counterReducer)
        let calls = Recorded<Int>()
        let observation = store.observe { calls.append($0.count) }
        store.dispatch(.increment)
        observation.cancel()
        store.dispatch(.increment)

        var released: StoreObservation? = store.observe { calls.append($0.count * 100) }
        store.dispatch(.increment)
        released = nil
        store.dispatch(.increment)
        #expect(released == nil)
        #expect(calls.all == [1, 300])
    }

    @Test("the state stream starts with the current state and finishes when the store goes away")
    func streamFinishesWithStore() async {
        var store: Store<Counter, CounterAction>? = Store(initialState: Counter(count: 5), reducer: counterReducer)
        let stream = store!.states
        store?.dispatch(.increment)
        store = nil
        var values: [Int] = []
        for await state in stream { values.append(state.count) }
        #expect(values == [5, 6])
    }

    @Test("await send(_:) resumes after its own action is reduced, from many concurrent tasks")
    func sendResumesAfterItsAction() async {
        let store = Store(initialState: Ledger(), reducer: Self.ledgerReducer)
        await withTaskGroup(of: Void.self) { group in
            for sender in 0..<8 {
                group.addTask {
                    for index in 0..<200 {
                        let tag = Tagged(sender: sender, number: index)
                        await store.send(tag)
                        // Reduced by the time send returns, whichever thread reduced it.
                        #expect(store.state.reduced.contains(tag))
                    }
                }
            }
        }
        #expect(store.state.reduced.count == 1_600)
        #expect(store.isIdle)
    }

}
