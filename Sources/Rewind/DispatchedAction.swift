/// An action together with the ``ActionSource`` it was dispatched from, its ticket and what
/// caused it.
///
/// This is what travels along the store's timeline and what middleware sees, so a recorder can
/// store the action, where it came from and why in one piece.
public struct DispatchedAction<Action: Sendable>: Sendable {
    /// The action.
    public var action: Action
    /// Where it was dispatched from.
    public var source: ActionSource
    /// The action's identity in this process, ``ActionTicket/untracked`` when it has none.
    public var ticket: ActionTicket
    /// What led to it; `nil` for a root (a gesture, an outside event) or when nothing is known.
    public var cause: ActionCause?

    /// Pairs an action with its source, with no ticket and no cause.
    ///
    /// - Parameters:
    ///   - action: The action as dispatched.
    ///   - source: Where it was dispatched from.
    @inlinable
    public init(_ action: Action, from source: ActionSource) {
        self.init(action, from: source, ticket: .untracked, cause: nil)
    }

    /// Pairs an action with its source, its ticket and its cause.
    ///
    /// - Parameters:
    ///   - action: The action as dispatched.
    ///   - source: Where it was dispatched from.
    ///   - ticket: The action's identity, which what it causes points at.
    ///   - cause: What led to it; `nil` for a root.
    @inlinable
    public init(_ action: Action, from source: ActionSource, ticket: ActionTicket, cause: ActionCause?) {
        self.action = action
        self.source = source
        self.ticket = ticket
        self.cause = cause
    }

    /// The cause of whatever this action leads to: itself, under its chain's root.
    @inlinable
    public var asCause: ActionCause {
        ticket.causing(after: cause)
    }
}

/// Equal when the actions and their sources are: a ticket and a cause name actions inside one
/// process, so the same script run twice dispatches equal actions.
extension DispatchedAction: Equatable where Action: Equatable {
    public static func == (lhs: DispatchedAction, rhs: DispatchedAction) -> Bool {
        lhs.action == rhs.action && lhs.source == rhs.source
    }
}

extension DispatchedAction: Hashable where Action: Hashable {
    public func hash(into hasher: inout Hasher) {
        hasher.combine(action)
        hasher.combine(source)
    }
}

/// Only the action and its source are coded: a ticket names an action inside one process, so
/// a decoded action has none.
extension DispatchedAction: Codable where Action: Codable {
    private enum CodingKeys: String, CodingKey {
        case action, source
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(try container.decode(Action.self, forKey: .action), from: try container.decode(ActionSource.self, forKey: .source))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(action, forKey: .action)
        try container.encode(source, forKey: .source)
    }
}
