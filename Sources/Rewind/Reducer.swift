/// A pure function that applies an action to a state in place.
///
/// Reducers do no I/O, read no clock and start no work: everything they need arrives in the
/// action. That is what makes a recorded log replayable — folding the same reducer over the same
/// actions gives the same state, today and a year from now. Work with side effects belongs to a
/// ``Middleware`` and its ``Effect``s, whose results come back as actions.
///
/// ```swift
/// let counter = Reducer<Int, CounterAction> { count, action in
///     switch action {
///     case .increment: count += 1
///     case .decrement: count -= 1
///     }
/// }
/// var state = 0
/// counter(&state, .increment) // state == 1
/// ```
///
/// Reducers compose with ``combine(_:)-(Reducer<State,Action>...)`` and lift onto a larger state and action with
/// ``lift(state:action:)``.
public struct Reducer<State, Action>: Sendable {
    /// The reducing function.
    public let reduce: @Sendable (inout State, Action) -> Void

    /// Wraps a reducing function.
    ///
    /// - Parameter reduce: Applies an action to the state in place. It must be pure.
    @inlinable
    public init(_ reduce: @escaping @Sendable (inout State, Action) -> Void) {
        self.reduce = reduce
    }

    /// Applies `action` to `state`.
    ///
    /// - Parameters:
    ///   - state: The state to change.
    ///   - action: The action to apply.
    @inlinable
    public func callAsFunction(_ state: inout State, _ action: Action) {
        reduce(&state, action)
    }

    /// A reducer that changes nothing.
    @inlinable
    public static var identity: Reducer {
        Reducer { _, _ in }
    }

    /// Runs several reducers one after the other, each seeing the state the previous one left.
    ///
    /// - Parameter reducers: The reducers, in the order they run.
    /// - Returns: One reducer that runs them all.
    public static func combine(_ reducers: Reducer...) -> Reducer {
        combine(reducers)
    }

    /// Runs several reducers one after the other, each seeing the state the previous one left.
    ///
    /// - Parameter reducers: The reducers, in the order they run.
    /// - Returns: One reducer that runs them all.
    @inlinable
    public static func combine(_ reducers: [Reducer]) -> Reducer {
        switch reducers.count {
        case 0: return .identity
        case 1: return reducers[0]
        default:
            let functions = reducers.map(\.reduce)
            return Reducer { state, action in
                for reduce in functions { reduce(&state, action) }
            }
        }
    }

    /// This reducer followed by `next`.
    ///
    /// - Parameter next: The reducer to run after this one.
    /// - Returns: A reducer that runs both.
    public func combined(with next: Reducer) -> Reducer {
        .combine(self, next)
    }
}
