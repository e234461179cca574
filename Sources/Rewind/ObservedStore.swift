import Dispatch
public import Observation
import Synchronization

/// A store's state for SwiftUI: `@Observable`, updated on the main actor, and only when it
/// changed — so a view that reads a scoped part re-renders only when that part changes.
///
/// <!-- snippet: requires SwiftUI -->
/// ```swift
/// struct CartView: View {
///     @State private var cart = appStore.scope(state: \.cart, action: AppAction.cart).observed()
///
///     var body: some View {
///         Text("Total: \(cart.state.total)")
///         Button("Clear") { cart.dispatch(.clear) }
///     }
/// }
/// ```
///
/// The store reduces on whatever thread dispatches; each change is handed to the main actor,
/// where ``state`` takes it. Changes that arrive faster than the main actor takes them are
/// coalesced: ``state`` skips to the latest, so a burst of a thousand actions costs one update,
/// not a thousand. A change that leaves the state equal (`==`) to what the view has does not
/// touch ``state`` at all: SwiftUI sees no change, and views that read it are not re-evaluated.
///
/// It keeps the store alive, and stops following it when released.
@MainActor
@Observable
public final class ObservedStore<State: Sendable & Equatable, Action: Sendable> {
    /// The state as of the last change the main actor has taken.
    public private(set) var state: State
    @ObservationIgnored private let dispatchAction: @Sendable (Action, ActionSource) -> Void
    @ObservationIgnored private var following: StoreObservation?

    /// Follows `store`'s state on the main actor.
    ///
    /// - Parameter store: A ``Store``, or a ``StoreProjection`` of the part a view needs.
    public init<Followed: StoreType>(_ store: Followed) where Followed.State == State, Followed.Action == Action {
        state = store.state
        dispatchAction = { store.dispatch($0, from: $1) }
        let latest = LatestState<State>()
        // The current state first, under the store's lock, so that no change between reading
        // `state` above and subscribing is missed.
        following = StoreObservation(cancel: store._subscribe(
            includingCurrent: true,
            deliver: { [weak self] state in
                guard latest.offer(state) else { return }
                // One hop per burst: later changes meanwhile only replace the offered state.
                DispatchQueue.main.async {
                    MainActor.assumeIsolated { self?.take(latest) }
                }
            },
            finish: nil
        ))
    }

    private func take(_ latest: LatestState<State>) {
        guard let newState = latest.take(), newState != state else { return }
        state = newState
    }

    /// Dispatches an action to the store, capturing the caller's location as its source.
    ///
    /// - Parameters:
    ///   - action: The action.
    ///   - info: An optional note recorded with the source.
    ///   - file: The caller's file (captured).
    ///   - function: The caller's function (captured).
    ///   - line: The caller's line (captured).
    ///   - column: The caller's column (captured).
    public func dispatch(
        _ action: Action, info: String? = nil,
        file: String = #fileID, function: String = #function, line: UInt = #line, column: UInt = #column
    ) {
        dispatchAction(action, ActionSource(file: file, function: function, line: line, column: column, info: info))
    }
}

extension StoreType where State: Equatable {
    /// This store's state for SwiftUI, updated on the main actor: see ``ObservedStore``.
    /// Scope first (``scope(state:action:)``) so that a view follows only the part it shows.
    @MainActor
    public func observed() -> ObservedStore<State, Action> {
        ObservedStore(self)
    }
}

/// The latest state offered and not yet taken, and whether a hop to take it is on its way.
private final class LatestState<State: Sendable>: Sendable {
    private let pending = Mutex<(state: State?, hopScheduled: Bool)>((nil, false))

    /// Keeps `state` as the one to take; `true` when the caller must schedule the hop.
    func offer(_ state: State) -> Bool {
        pending.withLock { pending in
            pending.state = state
            defer { pending.hopScheduled = true }
            return !pending.hopScheduled
        }
    }

    /// The latest state offered since the last take, if any.
    func take() -> State? {
        pending.withLock { pending in
            defer { pending = (nil, false) }
            return pending.state
        }
    }
}
