import Synchronization

/// Collects values from any thread, for assertions after the fact.
public final class Recorded<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])

    /// An empty collection.
    public init() {}

    /// Adds a value.
    public func append(_ value: Value) {
        values.withLock { $0.append(value) }
    }

    /// Every value so far, in the order they were added.
    public var all: [Value] {
        values.withLock { $0 }
    }
}
