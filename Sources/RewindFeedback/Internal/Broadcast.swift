import Synchronization

/// Hands every value to every current subscriber, each through an `AsyncStream` of its own.
///
/// The one fan-out behind ``Gear/events``, ``ActivityTracker/isActive`` and
/// ``ErrorRouter/errors``. Values are yielded under the lock, so every subscriber sees them in
/// the order they were sent, and a subscriber's optional first value comes before anything sent
/// after it subscribed.
final class Broadcast<Element: Sendable>: Sendable {
    private struct Subscribers: Sendable {
        var continuations: [UInt64: AsyncStream<Element>.Continuation] = [:]
        var nextID: UInt64 = 0
        var isFinished = false
    }

    private let subscribers = Mutex(Subscribers())

    /// A new subscriber's stream: `first` (if any), then every value sent from now on.
    func subscribe(
        first: Element? = nil,
        bufferingPolicy: AsyncStream<Element>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: bufferingPolicy)
        let id: UInt64? = subscribers.withLock { subscribers in
            if let first { continuation.yield(first) }
            guard !subscribers.isFinished else { return nil }
            let id = subscribers.nextID
            subscribers.nextID += 1
            subscribers.continuations[id] = continuation
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Sends `value` to every subscriber.
    func send(_ value: Element) {
        subscribers.withLock { subscribers in
            for continuation in subscribers.continuations.values { continuation.yield(value) }
        }
    }

    /// Ends every subscriber's stream; later subscribers get a finished stream.
    func finish() {
        let continuations = subscribers.withLock { subscribers in
            subscribers.isFinished = true
            defer { subscribers.continuations.removeAll() }
            return Array(subscribers.continuations.values)
        }
        // `finish` runs the termination handler, which takes the lock: never inside it.
        for continuation in continuations { continuation.finish() }
    }

    deinit {
        finish()
    }
}
