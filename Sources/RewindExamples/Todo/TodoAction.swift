public import Foundation
public import RewindCoding

/// Everything that can happen in the todo app.
@BinaryCodable
public enum TodoAction: Codable, Equatable, Hashable, Sendable {
    /// Managing lists.
    case list(ListAction)
    /// Managing items.
    case item(ItemAction)
    /// Choosing which items show.
    case filter(TodoFilter)
    /// Syncing with the server.
    case sync(SyncAction)

    /// The list action, if this is one.
    public var list: ListAction? {
        if case let .list(action) = self { action } else { nil }
    }

    /// The item action, if this is one.
    public var item: ItemAction? {
        if case let .item(action) = self { action } else { nil }
    }

    /// The filter, if this action sets one.
    public var filter: TodoFilter? {
        if case let .filter(filter) = self { filter } else { nil }
    }

    /// The sync action, if this is one.
    public var sync: SyncAction? {
        if case let .sync(action) = self { action } else { nil }
    }

    /// Whether this action changes data that needs syncing.
    public var isChange: Bool {
        switch self {
        case let .list(action): if case .select = action { false } else { true }
        case .item: true
        case .filter, .sync: false
        }
    }
}

/// Managing lists.
@BinaryCodable
public enum ListAction: Codable, Equatable, Hashable, Sendable {
    /// Creates a list and selects it.
    case create(id: UUID, title: String)
    /// Renames a list.
    case rename(id: UUID, title: String)
    /// Deletes a list and its items.
    case delete(id: UUID)
    /// Shows a list.
    case select(id: UUID)
}

/// Managing items.
@BinaryCodable
public enum ItemAction: Codable, Equatable, Hashable, Sendable {
    /// Adds an item at the end of a list.
    case add(listID: UUID, id: UUID, title: String, at: Date)
    /// Renames an item.
    case rename(id: UUID, title: String)
    /// Marks an item done or not done.
    case toggle(id: UUID)
    /// Deletes an item.
    case delete(id: UUID)
    /// Moves an item to a position in a list (its own or another).
    case move(id: UUID, toList: UUID, index: Int)
    /// Deletes a list's done items.
    case clearCompleted(listID: UUID)
}

/// Syncing with the server.
@BinaryCodable
public enum SyncAction: Codable, Equatable, Hashable, Sendable {
    /// A sync starts (effect: upload the changes).
    case start(at: Date)
    /// The server took the changes.
    case finished(at: Date, uploaded: Int)
    /// The sync failed.
    case failed(reason: String)
}
