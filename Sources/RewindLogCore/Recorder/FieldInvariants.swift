public import Rewind

/// The ``Invariant``s a recorder checks in the field, and the reducer that lets it check them
/// off the dispatch path (``RecorderConfiguration/invariants``).
///
/// The writer thread keeps a state of its own — a shadow — and folds each action it has
/// committed into it with the app's reducer, then asks every invariant of the state after it.
/// The shadow starts from each session's initial state and is replaced by every snapshot the
/// dispatch path hands over, so a reducer that is not a pure function of state and action (one
/// that reads the clock) drifts at most a snapshot interval. The first action after which an
/// invariant fails seals a report (reason ``ReportReason/Kind/invariant``, named after the
/// invariant), ending ``ReportOptions/eventsAfterTrigger`` actions later: one report a session,
/// whichever trigger comes first (an error action, an invariant).
///
/// ```swift
/// var configuration = RecorderConfiguration<ShopState, ShopAction>()
/// configuration.reports = ReportOptions(key: try ReportKey(line: teamPublicKeyLine))
/// configuration.invariants = FieldInvariants(reducer: Shop.reducer, [
///     Invariant(name: "non-negative-total", description: "the cart total is never negative") { $0.cart.total >= 0 },
/// ])
/// ```
///
/// Why a shadow fold rather than the states the store reduces: handing the writer the state
/// after every action would make the app's next mutation copy the state's storage
/// (copy-on-write, the writer still holding it) on the dispatching thread, every action. The
/// shadow costs the dispatching thread nothing; the writer thread pays the reducer once more
/// per action (`rewind-bench --workload dispatch` compares the two).
public struct FieldInvariants<State: Sendable, Action: Sendable>: Sendable {
    /// The app's reducer, run again on the writer thread. Pure and synchronous, as replay needs
    /// it to be anyway; it must not touch what the app's own reducer touches beyond the state.
    public var reducer: Reducer<State, Action>
    /// The invariants, asked in order after each action.
    public var invariants: [Invariant<State>]

    /// Checks `invariants` after each action, folding with `reducer` on the writer thread.
    ///
    /// - Parameters:
    ///   - reducer: The store's reducer.
    ///   - invariants: What must hold after every action.
    public init(reducer: Reducer<State, Action>, _ invariants: [Invariant<State>]) {
        self.reducer = reducer
        self.invariants = invariants
    }

    /// The first invariant `state` breaks, if any.
    func firstBroken(by state: State) -> Invariant<State>? {
        invariants.first { !$0.holds(state) }
    }
}
