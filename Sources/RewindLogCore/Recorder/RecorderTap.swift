public import Rewind
public import Synchronization

extension Recorder {
    /// Begins recording a store that is not Rewind's — a SwiftRex, TCA-style or ReSwift store,
    /// a view model — and returns the hand-off its reduce calls with every action.
    ///
    /// It records exactly as ``middleware`` does: the same buffer, batching, snapshots, gaps,
    /// redaction and stall rule, so a session recorded through a tap replays like any other.
    /// Like binding ``middleware``, it begins a session holding `initialState`, on the writer
    /// thread; tap one store only. The tap keeps the recorder alive.
    ///
    /// - Parameter initialState: The store's state before its first recorded action.
    @inlinable
    public func tap(initialState: State) -> RecorderTap<State, Action> {
        RecorderTap(hooks: hooks(initialState: initialState), recorder: self)
    }
}

/// The recorder's hand-off for a store that is not Rewind's: the store tells it about each
/// action it reduces, with the state before and after.
///
/// A store that holds its state as a value it mutates in place (a view model, a reducer
/// wrapper) reduces through ``record(_:from:ticket:cause:reducing:_:)``:
///
/// ```swift
/// final class ShopModel {
///     private(set) var state = ShopState()
///     private let tap: RecorderTap<ShopState, ShopAction>
///
///     init(recorder: Recorder<ShopState, ShopAction>) {
///         tap = recorder.tap(initialState: state)
///     }
///
///     func send(_ action: ShopAction, file: String = #fileID, function: String = #function,
///               line: UInt = #line, column: UInt = #column) {
///         tap.record(action, from: ActionSource(file: file, function: function, line: line, column: column),
///                    reducing: &state) { Shop.reducer(&$0, action) }
///     }
/// }
/// ```
///
/// A store whose middleware sees the state through a getter calls ``willReduce(_:from:state:)``
/// before the reducer runs and ``didReduce(_:from:ticket:cause:state:)`` after it.
///
/// **Never hold the state before across the reducer.** `let before = state` kept while the
/// store mutates `state` makes every mutation copy the state's storage (copy-on-write): on the
/// shop's growing state, each action then costs a copy of the whole state. Both forms read the state
/// before the reducer runs and keep it only in the rare case the recorder needs it (to resume
/// after a failed write).
///
/// **One producer, in the store's order.** Calls must not overlap, and must come in the order
/// the store reduced the actions — what a store's serialized reduce gives for free. A debug
/// build checks it: two calls at once stop the app with a message naming the tap. A release
/// build does not pay for the check, and what overlapping calls do there is undefined (the
/// hand-off is a single-producer ring).
///
/// **Causes.** An action recorded here is caused by whatever `ActionCause.current` holds where
/// the store calls (an effect of an earlier action that carries it, `ActionCause.bound`), or by the
/// `cause` given. ``record(_:from:ticket:cause:reducing:_:)`` makes the action the cause of
/// whatever `reduce` dispatches; a store that runs an action's effects after `reduce` returns
/// binds it around them itself:
///
/// ```swift
/// let ticket = ActionTicket.next(), cause = ActionCause.current
/// let effect = tap.record(action, from: source, ticket: ticket, cause: cause, reducing: &state) { reducer(&$0, action) }
/// ActionCause.$bound.withValue(ticket.causing(after: cause)) { run(effect) }
/// ```
///
/// A call goes through the recorder's middleware's own hand-off: it appends to a bounded buffer
/// and returns, waiting only for room (or, with `.synchronous` durability, for the commit),
/// never past the stall limit.
public final class RecorderTap<State: Codable & Sendable, Action: Codable & Sendable>: Sendable {
    @usableFromInline let hooks: Middleware<State, Action>.Hooks
    /// Keeps the recorder (and its writer) alive as long as the store holds its tap, as a
    /// bound middleware does.
    @usableFromInline let recorder: Recorder<State, Action>
    /// Calls under way: more than one means two producers (checked in debug builds only).
    @usableFromInline let callsUnderWay = Atomic<Int>(0)

    @usableFromInline
    init(hooks: Middleware<State, Action>.Hooks, recorder: Recorder<State, Action>) {
        (self.hooks, self.recorder) = (hooks, recorder)
    }

    /// Reduces `action` into `state` with `reduce`, and records it.
    ///
    /// - Parameters:
    ///   - action: The action the store reduces.
    ///   - source: Where it was sent from: the call site the store's own `send` captured
    ///     (`#fileID`, `#function`, `#line`, `#column` as default arguments). A store that has
    ///     no send site to give (a TCA reducer sending an effect's action) passes the place it
    ///     records from, `ActionSource()`, perhaps with an `info` saying where the action came from.
    ///   - ticket: The action's identity, which the causes of what it leads to point at; a
    ///     fresh one by default.
    ///   - cause: What led to the action: by default whatever `ActionCause.current` holds.
    ///   - state: The store's state, reduced in place.
    ///   - reduce: The store's reducer for `action`, run with the action as the current cause
    ///     (`ActionCause.whileProcessing`).
    /// - Returns: What `reduce` returns (a TCA reducer's effect, say). When it throws, nothing
    ///   is recorded for `action`: a reducer that throws must leave `state` as it found it.
    @inlinable
    public func record<Result>(
        _ action: Action, from source: ActionSource, ticket: ActionTicket = .next(), cause: ActionCause? = ActionCause.current,
        reducing state: inout State, _ reduce: (inout State) throws -> Result
    ) rethrows -> Result {
        enter()
        defer { leave() }
        let dispatched = DispatchedAction(action, from: source, ticket: ticket, cause: cause)
        hooks.willReduce?(dispatched, state)
        var reduced = false
        // A reducer that throws has left the action too: the hang watchdog must not count the
        // time after it as spent inside.
        defer {
            if !reduced, let watchdog = recorder.buffer.hangWatchdog {
                if watchdog.leave() { _ = watchdog.takeHang() }
                watchdog.dropAction()
                watchdog.settle()
            }
        }
        let result = try ActionCause.whileProcessing(dispatched.asCause) { try reduce(&state) }
        reduced = true
        hooks.didReduce?(dispatched, state)
        return result
    }

    /// Tells the recorder the store is about to reduce `action` from `state`; call
    /// ``didReduce(_:from:ticket:cause:state:)`` once it has — after every `willReduce`, even when the reducer
    /// failed: the hang watchdog counts the time between the two as spent inside the action.
    /// Pass the state straight from the store's getter (`getState()`), without keeping it.
    @inlinable
    public func willReduce(_ action: Action, from source: ActionSource, state: State) {
        enter()
        defer { leave() }
        hooks.willReduce?(DispatchedAction(action, from: source), state)
    }

    /// Records `action`, which the store has just reduced into `state`: the action and source
    /// given to ``willReduce(_:from:state:)`` before it.
    ///
    /// - Parameters:
    ///   - action: The action the store reduced.
    ///   - source: Where it was sent from.
    ///   - ticket: The action's identity, for the causes of what it leads to; none by default.
    ///   - cause: What led to the action: by default whatever `ActionCause.current` holds.
    ///   - state: The state after the action.
    @inlinable
    public func didReduce(
        _ action: Action, from source: ActionSource, ticket: ActionTicket = .untracked, cause: ActionCause? = ActionCause.current, state: State
    ) {
        enter()
        defer { leave() }
        hooks.didReduce?(DispatchedAction(action, from: source, ticket: ticket, cause: cause), state)
    }

    /// The single-producer check's entry: a second call under way is a misuse (debug builds).
    @usableFromInline
    func enter() {
        #if DEBUG
        let underWay = callsUnderWay.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue
        if underWay > 1 {
            fatalError(Self.overlapMessage)
        }
        #endif
    }

    @usableFromInline
    func leave() {
        #if DEBUG
        callsUnderWay.wrappingSubtract(1, ordering: .acquiringAndReleasing)
        #endif
    }

    static var overlapMessage: String {
        "RecorderTap<\(State.self), \(Action.self)> was called from two threads at once. "
            + "A tap takes one producer: call it from the store's serialized reduce, in the order the actions were reduced."
    }
}
