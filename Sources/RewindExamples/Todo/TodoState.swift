public import Foundation
public import RewindCoding

/// One thing to do.
public struct TodoItem: Codable, Equatable, Hashable, Sendable, Identifiable {
    /// The item's id, chosen when it was added.
    public var id: UUID
    /// What to do.
    public var title: String
    /// Whether it is done.
    public var isDone: Bool
    /// When it was added.
    public var createdAt: Date

    /// Creates an item.
    public init(id: UUID, title: String, isDone: Bool = false, createdAt: Date) {
        self.id = id
        self.title = title
        self.isDone = isDone
        self.createdAt = createdAt
    }
}

/// A named list of items.
public struct TodoList: Codable, Equatable, Hashable, Sendable, Identifiable {
    /// The list's id, chosen when it was created.
    public var id: UUID
    /// Its name.
    public var title: String
    /// Its items, in display order.
    public var items: [TodoItem]

    /// Creates a list.
    public init(id: UUID, title: String, items: [TodoItem] = []) {
        self.id = id
        self.title = title
        self.items = items
    }
}

/// Which items a list shows.
@BinaryCodable
public enum TodoFilter: String, Codable, Equatable, Hashable, Sendable, CaseIterable {
    /// Every item.
    case all
    /// Items not done.
    case active
    /// Items done.
    case completed
}

/// The whole todo app's state.
public struct TodoState: Codable, Equatable, Hashable, Sendable {
    /// Where syncing stands.
    public struct Sync: Codable, Equatable, Hashable, Sendable {
        /// Changes made since the last successful sync.
        public var pendingChanges = 0
        /// Whether a sync is under way.
        public var isSyncing = false
        /// When the last sync finished.
        public var lastSyncedAt: Date?
        /// Why the last sync failed, if it did.
        public var lastError: String?

        /// Nothing to sync yet.
        public init() {}
    }

    /// The lists, in display order.
    public var lists: [TodoList] = []
    /// The list on screen.
    public var selectedListID: UUID?
    /// Which items are shown.
    public var filter: TodoFilter = .all
    /// Where syncing stands.
    public var sync = Sync()

    /// No lists yet.
    public init() {}

    /// The items of the selected list that the filter shows.
    public var visibleItems: [TodoItem] {
        guard let list = lists.first(where: { $0.id == selectedListID }) else { return [] }
        switch filter {
        case .all: return list.items
        case .active: return list.items.filter { !$0.isDone }
        case .completed: return list.items.filter(\.isDone)
        }
    }
}
