import Synchronization

/// Tells whether any tracked work is running, as a value and as an async stream of `Bool` —
/// cause-logic-effect's activity indicator, for spinners and disabled buttons.
///
/// ```swift
/// let activity = ActivityTracker()
/// let load = Effect<Screen.Event>.run { send in
///     send(.loaded(try await activity.track { try await api.fetch("teapots") }))
/// }
/// for await busy in activity.isActive { spinner.isHidden = !busy }
/// ```
///
/// Work overlaps freely: the tracker is active from the start of the first tracked work to the
/// end of the last one, and `isActive` only reports changes.
public final class ActivityTracker: Sendable {
    private let running = Mutex(0)
    private let changes = Broadcast<Bool>()

    /// Creates a tracker with nothing running.
    public init() {}

    /// Whether tracked work is running now.
    public var isActiveNow: Bool {
        running.withLock { $0 > 0 }
    }

    /// The activity now, then each change (`true` when work starts with none running, `false`
    /// when the last running work ends).
    public var isActive: AsyncStream<Bool> {
        running.withLock { count in changes.subscribe(first: count > 0) }
    }

    /// Runs `work`, counting it as activity until it returns or throws.
    ///
    /// - Parameters:
    ///   - work: The work to count as activity.
    ///   - isolation: The actor the work is isolated to (the caller's by default).
    /// - Returns: What `work` returns.
    /// - Throws: What `work` throws.
    public func track<T>(
        isolation: isolated (any Actor)? = #isolation,
        _ work: () async throws -> T
    ) async rethrows -> T {
        begin()
        defer { end() }
        return try await work()
    }

    /// Counts one more piece of running work. Pair every call with ``end()``; ``track(isolation:_:)``
    /// does both.
    public func begin() {
        running.withLock { count in
            count += 1
            if count == 1 { changes.send(true) }
        }
    }

    /// Counts one piece of work as ended.
    public func end() {
        running.withLock { count in
            precondition(count > 0, "ActivityTracker.end() without a matching begin()")
            count -= 1
            if count == 0 { changes.send(false) }
        }
    }
}
