public import Rewind
import Synchronization

/// A scripted person using an example app: looks at the state, performs one gesture on the app's
/// screens (which dispatch, so every action carries a real call site), repeat.
///
/// Users are seeded, and every id and date a gesture needs comes from the user, so the same seed
/// always produces the same session.
public protocol SimulatedUser: Sendable {
    /// The app's state.
    associatedtype State: Sendable
    /// The app's action.
    associatedtype Action: Sendable

    /// Looks at `state` and performs one gesture on `store`.
    ///
    /// - Parameters:
    ///   - state: The state the user sees.
    ///   - store: The store the app's screens dispatch to.
    mutating func performNextGesture(seeing state: State, on store: some StoreType<State, Action>)
}

extension SimulatedUser {
    /// Performs gestures on `store`, waiting after each one until its effects have fed their
    /// results back, for as long as `shouldContinue` says so.
    ///
    /// Waiting for the store to settle is what makes the session deterministic: each gesture
    /// sees the state the previous one, and its effects, left.
    ///
    /// - Parameters:
    ///   - store: The store to drive.
    ///   - shouldContinue: Asked before each gesture, with the number of gestures so far.
    public mutating func drive(
        _ store: Store<State, Action>,
        while shouldContinue: (_ gestures: Int) -> Bool
    ) async {
        var gestures = 0
        while shouldContinue(gestures) {
            performNextGesture(seeing: store.state, on: store)
            gestures += 1
            await store.waitUntilIdle()
        }
    }
}

/// Records the complete, reproducible action sequence of a scripted session: the user's actions
/// and everything middleware and effects fed back, each with its source.
public enum SessionRecording {
    /// Drives a fresh store with `user` until `count` actions have been reduced and returns the
    /// first `count` of them.
    ///
    /// - Parameters:
    ///   - count: How many actions to return.
    ///   - initialState: The state the session starts from.
    ///   - reducer: The app's reducer.
    ///   - middleware: The app's middleware (its effects, with a deterministic environment).
    ///   - user: The seeded user.
    /// - Returns: Exactly `count` actions, in the order the store reduced them.
    public static func actions<User: SimulatedUser>(
        count: Int,
        initialState: User.State,
        reducer: Reducer<User.State, User.Action>,
        middleware: Middleware<User.State, User.Action>,
        user: User
    ) async -> [DispatchedAction<User.Action>] {
        let recorded = Mutex<[DispatchedAction<User.Action>]>([])
        let capture = Middleware<User.State, User.Action>(didReduce: { dispatched, _, _ in
            recorded.withLock { $0.append(dispatched) }
        })
        let store = Store(
            initialState: initialState,
            reducer: reducer,
            middleware: .combine(middleware, capture)
        )
        var user = user
        await user.drive(store, while: { _ in recorded.withLock { $0.count } < count })
        return recorded.withLock { Array($0.prefix(count)) }
    }
}
