/// Identifies running effects so they can be cancelled, or replaced by a newer run.
///
/// Any `Hashable & Sendable` value will do; string literals work directly.
///
/// ```swift
/// let search = Middleware<ShopState, ShopAction>(didReduce: { dispatched, _, context in
///     switch dispatched.action {
///     case .catalogue(.load): context.run(.run(id: "load", cancelInFlight: true) { send in … })
///     case .cart(.clear): context.run(.cancel(id: "load"))
///     default: break
///     }
/// })
/// ```
public struct EffectID: Hashable, @unchecked Sendable {
    // `@unchecked`: `AnyHashable` is not `Sendable`, but both initialisers only ever wrap
    // values that are `Hashable & Sendable`, so the wrapped value is safe to share.
    private let base: AnyHashable

    /// Wraps an identifier.
    ///
    /// - Parameter base: Any hashable, sendable value.
    public init(_ base: some Hashable & Sendable) {
        self.base = AnyHashable(base)
    }
}

extension EffectID: ExpressibleByStringLiteral {
    /// Creates an identifier from a string literal.
    public init(stringLiteral value: String) {
        self.init(value)
    }
}

extension EffectID: CustomStringConvertible {
    /// The wrapped value's description.
    public var description: String { String(describing: base.base) }
}
