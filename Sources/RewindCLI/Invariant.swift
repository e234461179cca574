/// A named rule an app's state must always satisfy; `rewind bisect --invariant NAME` finds the
/// first action that breaks it.
///
/// ```swift
/// Invariant<ShopState>(name: "non-negative-total", description: "the cart total is never negative") {
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
