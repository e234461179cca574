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

/// The recorder's hand-off for a store that is not Rewind's: the store calls
/// ``record(_:from:before:after:)`` once for each action it reduces.
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
///         let before = state
///         Shop.reducer(&state, action)
///         tap.record(action, from: ActionSource(file: file, function: function, line: line, column: column),
///                    before: before, after: state)
///     }
/// }
/// ```
///
/// **One producer, in the store's order.** Calls must not overlap, and must come in the order
/// the store reduced the actions — what a store's serialized reduce gives for free. A debug
/// build checks it: two calls at once stop the app with a message naming the tap. A release
/// build does not pay for the check.
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

    /// Records one action the store has just reduced.
    ///
    /// - Parameters:
    ///   - action: The action, as the store reduced it.
    ///   - source: Where it was sent from: the call site the store's own `send` captured
    ///     (`#fileID`, `#function`, `#line`, `#column` as default arguments). A store that has
    ///     no send site to give (a TCA reducer, a ReSwift middleware) passes the place it
    ///     records from, `ActionSource()`, perhaps with an `info` saying where the action came from.
    ///   - before: The state before the reducer ran: a session resuming after a failed write
    ///     starts from it, so that this action is its first event.
    ///   - after: The state after the reducer ran: snapshots are taken of it.
    @inlinable
    public func record(_ action: Action, from source: ActionSource, before: State, after: State) {
        enter()
        defer { leave() }
        let dispatched = DispatchedAction(action, from: source)
        hooks.willReduce?(dispatched, before)
        hooks.didReduce?(dispatched, after)
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
        "RecorderTap<\(State.self), \(Action.self)>.record was called from two threads at once. "
            + "A tap takes one producer: call it from the store's serialized reduce, in the order the actions were reduced."
    }
}
