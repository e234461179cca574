import Foundation
public import Rewind

extension Todo {
    /// The todo app's logic, built from per-feature reducers lifted onto their part of the state.
    public static let reducer: Reducer<TodoState, TodoAction> = .combine(
        listReducer.lift(action: \TodoAction.list),
        itemReducer.lift(state: \TodoState.lists, action: \TodoAction.item),
        Reducer<TodoFilter, TodoFilter> { filter, chosen in filter = chosen }
            .lift(state: \TodoState.filter, action: \TodoAction.filter),
        syncReducer.lift(state: \TodoState.sync, action: \TodoAction.sync),
        changeCounter
    )

    static let listReducer = Reducer<TodoState, ListAction> { state, action in
        switch action {
        case let .create(id, title):
            guard !state.lists.contains(where: { $0.id == id }) else { return }
            state.lists.append(TodoList(id: id, title: title))
            state.selectedListID = id
        case let .rename(id, title):
            guard let index = state.lists.firstIndex(where: { $0.id == id }) else { return }
            state.lists[index].title = title
        case let .delete(id):
            state.lists.removeAll { $0.id == id }
            if state.selectedListID == id { state.selectedListID = state.lists.first?.id }
        case let .select(id):
            guard state.lists.contains(where: { $0.id == id }) else { return }
            state.selectedListID = id
        }
    }

    static let itemReducer = Reducer<[TodoList], ItemAction> { lists, action in
        func locate(_ id: UUID) -> (list: Int, item: Int)? {
            for (listIndex, list) in lists.enumerated() {
                if let itemIndex = list.items.firstIndex(where: { $0.id == id }) { return (listIndex, itemIndex) }
            }
            return nil
        }
        switch action {
        case let .add(listID, id, title, date):
            guard let index = lists.firstIndex(where: { $0.id == listID }), locate(id) == nil else { return }
            lists[index].items.append(TodoItem(id: id, title: title, createdAt: date))
        case let .rename(id, title):
            guard let at = locate(id) else { return }
            lists[at.list].items[at.item].title = title
        case let .toggle(id):
            guard let at = locate(id) else { return }
            lists[at.list].items[at.item].isDone.toggle()
        case let .delete(id):
            guard let at = locate(id) else { return }
            lists[at.list].items.remove(at: at.item)
        case let .move(id, listID, index):
            guard let at = locate(id), let target = lists.firstIndex(where: { $0.id == listID }) else { return }
            let item = lists[at.list].items.remove(at: at.item)
            let position = min(max(index, 0), lists[target].items.count)
            lists[target].items.insert(item, at: position)
        case let .clearCompleted(listID):
            guard let index = lists.firstIndex(where: { $0.id == listID }) else { return }
            lists[index].items.removeAll(where: \.isDone)
        }
    }

    static let syncReducer = Reducer<TodoState.Sync, SyncAction> { sync, action in
        switch action {
        case .start:
            sync.isSyncing = true
            sync.lastError = nil
        case let .finished(date, uploaded):
            sync.isSyncing = false
            sync.lastSyncedAt = date
            sync.pendingChanges = max(0, sync.pendingChanges - uploaded)
        case let .failed(reason):
            sync.isSyncing = false
            sync.lastError = reason
        }
    }

    /// Counts changes that the next sync must upload.
    static let changeCounter = Reducer<TodoState, TodoAction> { state, action in
        if action.isChange { state.sync.pendingChanges += 1 }
    }
}
