import Foundation
import Rewind
import RewindTestSupport
import RewindExamples
import Testing

@Suite("Todo")
struct TodoTests {
    static let date = Date(timeIntervalSince1970: 1_000)
    static let groceries = UUID(uuidString: "00000000-0000-4000-8000-0000000000a1")!
    static let work = UUID(uuidString: "00000000-0000-4000-8000-0000000000a2")!
    static func item(_ n: Int) -> UUID { UUID(uuidString: "00000000-0000-4000-8000-0000000001\(String(format: "%02d", n))")! }

    @Test("lists are created, selected, renamed and deleted")
    func lists() {
        var state = TodoState()
        Todo.reducer(&state, .list(.create(id: Self.groceries, title: "Groceries")))
        Todo.reducer(&state, .list(.create(id: Self.work, title: "Work")))
        #expect(state.selectedListID == Self.work)
        Todo.reducer(&state, .list(.rename(id: Self.work, title: "Office")))
        Todo.reducer(&state, .list(.delete(id: Self.work)))
        #expect(state.lists.map(\.title) == ["Groceries"])
        #expect(state.selectedListID == Self.groceries)
    }

    @Test("items are added, toggled, renamed, moved across lists, filtered and cleared")
    func items() {
        var state = TodoState()
        Todo.reducer(&state, .list(.create(id: Self.groceries, title: "Groceries")))
        Todo.reducer(&state, .list(.create(id: Self.work, title: "Work")))
        for n in 1...3 {
            Todo.reducer(&state, .item(.add(listID: Self.groceries, id: Self.item(n), title: "item \(n)", at: Self.date)))
        }
        Todo.reducer(&state, .item(.toggle(id: Self.item(2))))
        Todo.reducer(&state, .item(.rename(id: Self.item(3), title: "renamed")))
        Todo.reducer(&state, .item(.move(id: Self.item(1), toList: Self.work, index: 5)))
        Todo.reducer(&state, .list(.select(id: Self.groceries)))
        Todo.reducer(&state, .filter(.completed))
        #expect(state.visibleItems.map(\.id) == [Self.item(2)])
        Todo.reducer(&state, .item(.clearCompleted(listID: Self.groceries)))
        Todo.reducer(&state, .filter(.all))
        #expect(state.visibleItems.map(\.title) == ["renamed"])
        #expect(state.lists[1].items.map(\.id) == [Self.item(1)])
        // 2 creates, 3 adds, toggle, rename, move, clear: selecting and filtering are not changes.
        #expect(state.sync.pendingChanges == 9)
    }

    @Test("after enough changes the middleware starts a sync by itself; the effect reports back")
    func autoSync() async {
        let seen = Recorded<DispatchedAction<TodoAction>>()
        let store = Store(
            initialState: TodoState(),
            reducer: Todo.reducer,
            middleware: .combine(
                Todo.effects(environment: .simulated()),
                Middleware(didReduce: { dispatched, _, _ in seen.append(dispatched) })
            )
        )
        store.dispatch(.list(.create(id: Self.groceries, title: "Groceries")))
        for n in 1..<Todo.autoSyncThreshold {
            store.dispatch(.item(.add(listID: Self.groceries, id: Self.item(n), title: "\(n)", at: Self.date)))
        }
        await store.waitUntilIdle()

        let start = try! #require(seen.all.first { $0.action.sync.map { if case .start = $0 { true } else { false } } ?? false })
        #expect(start.source.origin == .middleware)
        #expect(start.source.info == "auto-sync")
        #expect(start.source.file == "RewindExamples/TodoEffects.swift")
        let finished = try! #require(seen.all.last)
        #expect(finished.source.origin == .effect)
        #expect(store.state.sync.pendingChanges == 0)
        #expect(store.state.sync.lastSyncedAt != nil)
    }

    @Test("a session is reproducible from its seed and exercises every feature")
    func sessionIsReproducible() async {
        let first = await Todo.sessionActions(count: 400, seed: 3)
        let again = await Todo.sessionActions(count: 400, seed: 3)
        #expect(first.count == 400)
        #expect(first == again)
        let kinds = Set(first.map { dispatched -> String in
            switch dispatched.action {
            case .list: "list"
            case .item(.move): "move"
            case .item: "item"
            case .filter: "filter"
            case .sync(.failed): "sync failed"
            case .sync: "sync"
            }
        })
        #expect(kinds == ["list", "item", "move", "filter", "sync", "sync failed"])
    }
}
