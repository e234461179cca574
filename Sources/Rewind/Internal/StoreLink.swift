import Synchronization

/// A weak reference to a store, set once the store exists.
///
/// Middleware is bound while the store is being initialised, before `self` can be captured, so
/// the context it receives reaches the store through this link. It is weak so that middleware
/// and effects never keep a store alive.
final class StoreLink<State: Sendable, Action: Sendable>: Sendable {
    private struct WeakStore: Sendable {
        weak var store: Store<State, Action>?
    }

    private let target = Mutex(WeakStore())

    var store: Store<State, Action>? {
        target.withLock { $0.store }
    }

    func connect(_ store: Store<State, Action>) {
        target.withLock { $0.store = store }
    }
}
