/// A named rule an app's state must always satisfy, written once and used everywhere: the
/// app's replay tool (`rewind bisect --invariant NAME` finds the first action that breaks it,
/// and the inspector marks it), and tests (`assertInvariant(_:throughout:reducer:)` in
/// RewindTesting). It lives in the log's core so that code inside an app can check it too
/// without linking replay or testing.
///
/// ```swift
/// let nonNegativeTotal = Invariant<ShopState>(name: "non-negative-total", description: "the cart total is never negative") {
///     $0.cart.total >= 0
/// }
/// ```
public struct Invariant<State>: Sendable {
    /// The name used on the command line.
    public var name: String
    /// What it means, for people.
    public var description: String
    /// Whether a state satisfies it.
    public var holds: @Sendable (State) -> Bool

    /// Creates an invariant.
    ///
    /// - Parameters:
    ///   - name: The name used on the command line.
    ///   - description: What it means.
    ///   - holds: Whether a state satisfies it.
    public init(name: String, description: String, holds: @escaping @Sendable (State) -> Bool) {
        self.name = name
        self.description = description
        self.holds = holds
    }
}
