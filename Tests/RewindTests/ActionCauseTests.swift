import Rewind
import RewindTestSupport
import Testing

@Suite("Action causes")
struct ActionCauseTests {
    /// Every action the store processed, as its middleware saw it.
    static func seen(_ actions: Recorded<DispatchedAction<CounterAction>>) -> Middleware<Counter, CounterAction> {
        Middleware(willReduce: { dispatched, _, _ in actions.append(dispatched) })
    }

    @Test("a dispatch from outside is a root; what its middleware dispatches and its effect sends are caused by it")
    func middlewareAndEffects() async throws {
        let actions = Recorded<DispatchedAction<CounterAction>>()
        let store = Store(
            initialState: Counter(),
            reducer: counterReducer,
            middleware: .combine(
                Self.seen(actions),
                Middleware(didReduce: { dispatched, _, context in
                    switch dispatched.action {
                    case .increment:
                        context.dispatch(.note("from middleware"))
                        // An effect that sends after a suspension, from another task.
                        context.run(.run { send in
                            try await Task.sleep(for: .milliseconds(20))
                            send(.add(10))
                        })
                    case .add(10):
                        context.run(.send(.note("from the effect's result")))
                    default:
                        break
                    }
                })
            )
        )
        store.dispatch(.increment)
        store.dispatch(.decrement)
        await store.waitUntilIdle()
        let all = actions.all
        #expect(all.map(\.action) == [.increment, .note("from middleware"), .decrement, .add(10), .note("from the effect's result")])
        let (tap, note, other, result, resultNote) = (all[0], all[1], all[2], all[3], all[4])
        #expect(tap.cause == nil && other.cause == nil, "dispatched from outside: roots")
        #expect(Set(all.map(\.ticket)).count == 5 && !all.contains { $0.ticket == .untracked })
        #expect(note.cause == ActionCause(parent: tap.ticket, root: tap.ticket))
        #expect(result.cause == ActionCause(parent: tap.ticket, root: tap.ticket), "the effect's send, 20 ms later, after another gesture")
        #expect(resultNote.cause == ActionCause(parent: result.ticket, root: tap.ticket), "two steps from the gesture")
    }

    @Test("an observer's dispatch is caused by the action it observed; a detached task's is not")
    func observersAndDetachedTasks() async throws {
        let actions = Recorded<DispatchedAction<CounterAction>>()
        let store = Store(initialState: Counter(), reducer: counterReducer, middleware: Self.seen(actions))
        let finished = AsyncStream<Void>.makeStream()
        let cancel = store._subscribe(includingCurrent: false, deliver: { [weak store] state in
            // Once: the note it dispatches leaves the count at 1.
            guard state.count == 1, state.log.isEmpty, let store else { return }
            store.dispatch(.note("observed"))
            Task.detached {
                store.dispatch(.note("detached"))
                finished.continuation.yield()
            }
        }, finish: nil)
        defer { cancel() }
        store.dispatch(.increment)
        for await _ in finished.stream { break }
        await store.waitUntilIdle()
        let all = actions.all
        let observed = try #require(all.first { $0.action == .note("observed") })
        let detached = try #require(all.first { $0.action == .note("detached") })
        #expect(observed.cause?.parent == all[0].ticket)
        #expect(detached.cause == nil, "a detached task inherits no task-local value")
    }

    @Test("tickets: one store's follow each other; two stores never share one; next() is never untracked")
    func tickets() {
        let actions = Recorded<DispatchedAction<CounterAction>>()
        let one = Store(initialState: Counter(), reducer: counterReducer, middleware: Self.seen(actions))
        let two = Store(initialState: Counter(), reducer: counterReducer, middleware: Self.seen(actions))
        one.dispatch(.increment)
        two.dispatch(.increment)
        one.dispatch(.increment)
        let tickets = actions.all.map(\.ticket.rawValue)
        #expect(tickets[2] == tickets[0] + 1)
        #expect(Set(tickets).count == 3)
        #expect(tickets[1] >> 40 != tickets[0] >> 40, "each store has a tag of its own")
        let shared = (0..<1_000).map { _ in ActionTicket.next() }
        #expect(Set(shared).count == 1_000 && !shared.contains(.untracked))
    }

    @Test("dispatching inside a withTaskGroup body and its child tasks: causes as anywhere, never a trap")
    func insideTaskGroups() async {
        let actions = Recorded<DispatchedAction<CounterAction>>()
        let store = Store(
            initialState: Counter(),
            reducer: counterReducer,
            middleware: .combine(
                Self.seen(actions),
                Middleware(didReduce: { dispatched, _, context in
                    if dispatched.action == .increment { context.dispatch(.note("followed")) }
                })
            )
        )
        await withTaskGroup(of: Void.self) { group in
            // In the body itself, where binding a task-local synchronously would trap.
            store.dispatch(.increment)
            for _ in 0..<4 { group.addTask { store.dispatch(.increment) } }
            store.dispatch(.decrement)
        }
        await store.waitUntilIdle()
        let all = actions.all
        #expect(all.filter { $0.action == .increment }.count == 5 && all.filter { $0.action == .note("followed") }.count == 5)
        for (index, dispatched) in all.enumerated() where dispatched.action == .note("followed") {
            let parent = all[..<index].last { $0.action == .increment }
            #expect(dispatched.cause?.root == dispatched.cause?.parent && all.contains { $0.ticket == dispatched.cause?.parent && $0.action == .increment })
            #expect(parent != nil)
        }
        #expect(all.filter { $0.action != .note("followed") }.allSatisfy { $0.cause == nil })
    }

    @Test("a cause bound by hand is what an outside dispatch carries")
    func boundByHand() async {
        let actions = Recorded<DispatchedAction<CounterAction>>()
        let store = Store(initialState: Counter(), reducer: counterReducer, middleware: Self.seen(actions))
        let cause = ActionCause(parent: ActionTicket.next(), root: ActionTicket.next())
        ActionCause.$bound.withValue(cause) { store.dispatch(.increment) }
        await store.send(.decrement)
        #expect(actions.all.map(\.cause) == [cause, nil])
    }
}
