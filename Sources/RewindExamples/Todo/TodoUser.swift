public import Foundation
public import Rewind

/// A seeded, scripted todo user: makes lists, adds, ticks, renames, moves and clears items,
/// switches filters and now and then pulls to refresh.
public struct TodoUser: SimulatedUser {
    public typealias State = TodoState
    public typealias Action = TodoAction

    private var random: SeededRandom
    private var clock: Date

    private static let listNames = ["Groceries", "Work", "Home", "Trip to Lisbon", "Books", "Garden"]
    private static let itemNames = [
        "Buy oat milk", "Call the plumber", "Renew passport", "Water the basil", "Book flights",
        "Reply to Ana", "Pay rent", "Fix the bike light", "Read chapter 4", "Order printer ink",
        "Make a dentist appointment", "Pack chargers",
    ]

    /// A user whose choices follow `seed`.
    ///
    /// - Parameters:
    ///   - seed: Chooses the session: the same seed gives the same actions.
    ///   - start: The simulated time of the first gesture.
    public init(seed: UInt64, start: Date = Date(timeIntervalSince1970: 1_767_258_000)) {
        random = SeededRandom(seed: seed)
        clock = start
    }

    /// Performs one gesture.
    public mutating func performNextGesture(seeing state: TodoState, on store: some StoreType<TodoState, TodoAction>) {
        clock += TimeInterval(random.int(in: 3...90))
        let lists = ListsScreen(store: store)
        let list = ListScreen(store: store)

        guard let selected = state.lists.first(where: { $0.id == state.selectedListID }) else {
            if let existing = random.element(of: state.lists) {
                return lists.listTapped(existing.id)
            }
            return lists.newListSubmitted(id: random.uuid(), title: random.element(of: Self.listNames)!)
        }
        let items = selected.items
        let roll = random.int(below: 100)
        switch roll {
        case ..<30:
            list.itemSubmitted(listID: selected.id, id: random.uuid(), title: random.element(of: Self.itemNames)!, at: clock)
        case ..<48 where !items.isEmpty:
            list.checkboxTapped(random.element(of: items)!.id)
        case ..<54 where !items.isEmpty:
            let item = random.element(of: items)!
            list.itemRenamed(item.id, to: item.title + (random.chance(50) ? " (urgent)" : " — later"))
        case ..<62 where !items.isEmpty:
            let item = random.element(of: items)!
            let target = random.element(of: state.lists)!
            list.itemDragged(item.id, toList: target.id, index: random.int(below: target.items.count + 1))
        case ..<68 where !items.isEmpty:
            list.itemSwiped(random.element(of: items)!.id)
        case ..<72:
            list.clearCompletedTapped(listID: selected.id)
        case ..<78:
            list.filterPicked(random.element(of: TodoFilter.allCases)!)
        case ..<84 where state.lists.count < 5:
            lists.newListSubmitted(id: random.uuid(), title: random.element(of: Self.listNames)!)
        case ..<90:
            lists.listTapped(random.element(of: state.lists)!.id)
        case ..<93:
            lists.listRenamed(selected.id, to: selected.title + " ✓")
        case ..<95 where state.lists.count > 1:
            lists.listDeleted(selected.id)
        case ..<98:
            lists.pulledToRefresh(at: clock)
        default:
            list.itemSubmitted(listID: selected.id, id: random.uuid(), title: random.element(of: Self.itemNames)!, at: clock)
        }
    }
}

extension Todo {
    /// The complete action sequence of a scripted todo session: `count` actions, the user's and
    /// those the middleware and effects dispatched, each with its source — the same for the same
    /// seed.
    ///
    /// - Parameters:
    ///   - count: How many actions.
    ///   - seed: The user's seed.
    /// - Returns: The actions, in the order the store reduced them.
    public static func sessionActions(count: Int, seed: UInt64) async -> [DispatchedAction<TodoAction>] {
        await SessionRecording.actions(
            count: count,
            initialState: TodoState(),
            reducer: reducer,
            middleware: effects(environment: .simulated()),
            user: TodoUser(seed: seed)
        )
    }
}
