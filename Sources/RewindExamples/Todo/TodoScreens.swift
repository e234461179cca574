public import Foundation
public import Rewind

// The todo app's imperative shell: what a UI's controls would call. Each method is a real
// dispatch call site, so a recorded log names the screen and gesture behind every action.

/// The overview of all lists.
public struct ListsScreen<S: StoreType<TodoState, TodoAction>>: Sendable {
    let store: S

    /// A screen over `store`.
    public init(store: S) { self.store = store }

    /// The user created a list.
    public func newListSubmitted(id: UUID, title: String) {
        store.dispatch(.list(.create(id: id, title: title)))
    }

    /// The user opened a list.
    public func listTapped(_ id: UUID) {
        store.dispatch(.list(.select(id: id)))
    }

    /// The user renamed a list.
    public func listRenamed(_ id: UUID, to title: String) {
        store.dispatch(.list(.rename(id: id, title: title)))
    }

    /// The user deleted a list.
    public func listDeleted(_ id: UUID) {
        store.dispatch(.list(.delete(id: id)), info: "confirmed in alert")
    }

    /// The user pulled to refresh.
    public func pulledToRefresh(at date: Date) {
        store.dispatch(.sync(.start(at: date)))
    }
}

/// One list's items.
public struct ListScreen<S: StoreType<TodoState, TodoAction>>: Sendable {
    let store: S

    /// A screen over `store`.
    public init(store: S) { self.store = store }

    /// The user added an item.
    public func itemSubmitted(listID: UUID, id: UUID, title: String, at date: Date) {
        store.dispatch(.item(.add(listID: listID, id: id, title: title, at: date)))
    }

    /// The user ticked or unticked an item.
    public func checkboxTapped(_ id: UUID) {
        store.dispatch(.item(.toggle(id: id)))
    }

    /// The user edited an item's title.
    public func itemRenamed(_ id: UUID, to title: String) {
        store.dispatch(.item(.rename(id: id, title: title)))
    }

    /// The user swiped an item away.
    public func itemSwiped(_ id: UUID) {
        store.dispatch(.item(.delete(id: id)), info: "swipe to delete")
    }

    /// The user dragged an item to a new place.
    public func itemDragged(_ id: UUID, toList listID: UUID, index: Int) {
        store.dispatch(.item(.move(id: id, toList: listID, index: index)))
    }

    /// The user cleared done items.
    public func clearCompletedTapped(listID: UUID) {
        store.dispatch(.item(.clearCompleted(listID: listID)))
    }

    /// The user picked a filter.
    public func filterPicked(_ filter: TodoFilter) {
        store.dispatch(.filter(filter))
    }
}
