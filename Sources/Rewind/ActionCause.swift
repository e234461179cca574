import Synchronization

/// What led to an action: the action whose middleware or effect dispatched it, and the root of
/// that chain — the gesture or outside event that started it.
///
/// A ``Store`` gives every action it accepts an ``ActionTicket`` and, while it processes the
/// action, makes it the ``current`` cause on the processing thread. Whatever is dispatched
/// meanwhile is caused by it: a middleware's dispatch, an observer's, an effect's
/// ``Effect/send(_:info:file:function:line:column:)``. An effect that runs (`Effect.run`)
/// carries the cause into its task as the task-local ``bound``, so what it sends is caused by
/// the action that started it however long it ran, from child tasks too. An action dispatched
/// with no cause — a tap in a view, a notification — is a root.
///
/// ```swift
/// store.dispatch(.checkout(.submit(orderID: id, at: now)))  // a root: the user's gesture
/// // The payment effect its middleware started sends, seconds later,
/// //   send(.checkout(.paymentSucceeded(orderID: id, receipt: receipt)))
/// // an action caused by `.submit`, whose root is `.submit`.
/// ```
///
/// Recording turns tickets into seqs on the writer thread, so the dispatch path pays for a
/// ticket and a thread-local, nothing else. A cause the log cannot name (an action lost in a gap,
/// or recorded in another session) is stored as unknown, never as a wrong seq.
///
/// A task made in a hook with `Task { }` or `Task.detached` is not an effect the store runs: what
/// it dispatches has no cause unless it binds one, `ActionCause.$bound.withValue(cause) { … }`
/// with the cause read in the hook (`ActionCause.current`).
///
/// The processing thread's cause is a thread-local, not a task-local bound around each action:
/// binding a task-local synchronously is a runtime error inside a `withTaskGroup` body, and a
/// store may be dispatched to from anywhere.
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

    /// The cause a task carries: bound by the store around each effect it runs, or by hand.
    @TaskLocal public static var bound: ActionCause?

    /// The cause of whatever is dispatched now: the action being processed on this thread, or
    /// else the one the current task carries (``bound``); `nil` outside both.
    @inlinable
    public static var current: ActionCause? {
        ProcessingCause.get() ?? bound
    }

    /// Runs `body` with `cause` as this thread's ``current`` cause, as a store does while it
    /// processes an action; the cause before is back afterwards. For a store that is not
    /// Rewind's, around its reducer and whatever it runs synchronously for the action.
    ///
    /// - Parameters:
    ///   - cause: The cause of what `body` dispatches.
    ///   - body: The work.
    /// - Returns: What `body` returns.
    @inlinable
    public static func whileProcessing<Result>(_ cause: ActionCause, _ body: () throws -> Result) rethrows -> Result {
        let before = ProcessingCause.get()
        ProcessingCause.set(cause)
        defer { ProcessingCause.set(before) }
        return try body()
    }
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
