/// Keeps secrets — passwords, tokens — out of the log: decides, per action, whether it is
/// recorded as it is, with some fields scrubbed, or without its payload at all.
///
/// Redaction runs before encoding, so what it removes never reaches the disk; the event's
/// `redaction` column says that it happened (`fields` or `action`), and the `timeline` view shows
/// it. A withheld action cannot be replayed: replay stops there with an error that says so.
///
/// ```swift
/// let redaction = Redaction<AppAction> { action in
///     switch action {
///     case let .login(.submit(user, _)): .scrub(.login(.submit(user: user, password: "•••")))
///     case .payment(.cardEntered): .withhold
///     default: .keep
///     }
/// }
/// ```
public struct Redaction<Action>: Sendable {
    /// What to record of one action.
    public enum Decision {
        /// The action as it is.
        case keep
        /// This copy instead, with the secret fields replaced.
        case scrub(Action)
        /// Only the action's case and source, no payload.
        case withhold
    }

    /// Decides for each action.
    public let decide: @Sendable (Action) -> Decision

    /// Creates a redaction from a decision per action.
    ///
    /// - Parameter decide: Returns what to record of an action.
    public init(_ decide: @escaping @Sendable (Action) -> Decision) {
        self.decide = decide
    }

    /// Records every action as it is.
    public static var none: Redaction { Redaction { _ in .keep } }
}
