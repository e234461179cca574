/// What `bisect` and `shrink` look for.
enum Condition: Sendable {
    /// The first state that breaks the named invariant.
    case breaks(invariant: String)
    /// The first state whose JSON satisfies the expression.
    case matches(StatePredicate)

    /// How a condition reads in a report: when it is found, and when it never is.
    struct Labels {
        /// "invariant 'x' (…) breaks", "'cart.total < 0' holds".
        var found: String
        /// "invariant 'x' never breaks".
        var never: String
    }
}
