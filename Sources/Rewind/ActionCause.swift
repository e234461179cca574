import Synchronization

/// What led to an action: the action whose middleware or effect dispatched it, and the root of
/// that chain — the gesture or outside event that started it.
///
/// A ``Store`` gives every action it accepts an ``ActionTicket`` and, while it processes the
/// action, binds ``current`` to the action as a cause. Whatever is dispatched meanwhile is
/// caused by it: a middleware's dispatch, an effect started then (effects are tasks, and tasks
/// inherit task-local values, so an effect's actions carry the cause however long it runs), an
/// observer that dispatches. An action dispatched with no cause bound — a tap in a view, a
/// notification — is a root.
///
/// ```swift
/// store.dispatch(.checkout(.submit(orderID: id, at: now)))  // a root: the user's gesture
/// // The payment effect its middleware started sends, seconds later,
/// //   send(.checkout(.paymentSucceeded(orderID: id, receipt: receipt)))
/// // an action caused by `.submit`, whose root is `.submit`.
/// ```
///
/// Recording turns tickets into seqs on the writer thread, so the dispatch path pays for a
/// ticket and a task-local, nothing else. A cause the log cannot name (an action lost in a gap,
/// or recorded in another session) is stored as unknown, never as a wrong seq.
///
/// Detached tasks (`Task.detached`) do not inherit task-local values: an action sent from one
/// has no cause unless the task binds one (`ActionCause.$current.withValue(…)`).
public struct ActionCause: Sendable, Hashable {
    /// The action that led to this one.
    public var parent: ActionTicket
    /// The first action of the chain: the gesture or outside event that started it.
    public var root: ActionTicket

    /// Creates a cause.
    ///
    /// - Parameters:
    ///   - parent: The action that led to this one.
    ///   - root: The first action of the chain (`parent` itself when the parent is a root).
    public init(parent: ActionTicket, root: ActionTicket) {
        self.parent = parent
        self.root = root
    }

    /// The cause of whatever is dispatched now: the action being processed, or the one whose
    /// effect is running; `nil` outside both.
    @TaskLocal public static var current: ActionCause?
}

/// An action's identity inside one process, given when it is dispatched: what a cause points at
/// until a recorder turns it into a seq.
///
/// A store numbers its actions in the order it accepts them, under a tag of its own, so the
/// tickets of one store follow each other and a recorder can map a whole run of them to a run of
/// seqs. Stores that are not Rewind's take tickets from ``next()``.
public struct ActionTicket: RawRepresentable, Sendable, Hashable, Comparable {
    /// The ticket's bits: a store's tag in the top 24, its count of accepted actions below.
    public var rawValue: UInt64

    /// A ticket with the given bits.
    ///
    /// - Parameter rawValue: The bits, as ``rawValue`` holds them.
    @inlinable
    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// No ticket: an action that nothing can name as its cause (what a ``DispatchedAction``
    /// built without one holds). A recorder never maps it to a seq.
    public static let untracked = ActionTicket(rawValue: 0)

    /// A fresh ticket from the process's shared counter (tag 0): for a store that is not
    /// Rewind's, which hands its actions to a recorder's tap with their causes.
    public static func next() -> ActionTicket {
        // Never 0, which is `untracked`.
        ActionTicket(rawValue: sharedCount.wrappingAdd(1, ordering: .relaxed).newValue % countMask + 1)
    }

    /// The cause of what this action leads to, given the action's own cause.
    ///
    /// - Parameter cause: This action's cause, `nil` when it is a root.
    /// - Returns: A cause whose parent is this ticket and whose root is the chain's.
    @inlinable
    public func causing(after cause: ActionCause?) -> ActionCause {
        ActionCause(parent: self, root: cause?.root ?? self)
    }

    @inlinable
    public static func < (lhs: ActionTicket, rhs: ActionTicket) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// The bits that count a store's actions: 2^40, over a trillion actions a store.
    @usableFromInline static let countMask: UInt64 = (1 << 40) - 1

    /// The ticket of a store's `count`-th action, under `tag`.
    @inlinable
    static func store(tag: UInt64, count: UInt64) -> ActionTicket {
        ActionTicket(rawValue: tag | (count & countMask))
    }

    /// A tag for a new store: 2^24 - 1 stores a process before tags repeat (tag 0 is
    /// ``next()``'s).
    static func newStoreTag() -> UInt64 {
        let number = storeCount.wrappingAdd(1, ordering: .relaxed).newValue % ((1 << 24) - 1) + 1
        return number << 40
    }

    private static let sharedCount = Atomic<UInt64>(0)
    private static let storeCount = Atomic<UInt64>(0)
}

extension ActionTicket: CustomStringConvertible {
    /// `store#count`: the tag and the count, for logs and debugging.
    public var description: String {
        "\(rawValue >> 40)#\(rawValue & Self.countMask)"
    }
}
