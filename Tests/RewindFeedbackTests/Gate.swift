import Synchronization

/// Lets a test hold async work at a point until it opens the gate; waiting ends early when the
/// waiting task is cancelled.
final class Gate: Sendable {
    private struct Waiting: Sendable {
        var isOpen = false
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextID: UInt64 = 0
    }

    private let waiting = Mutex(Waiting())

    func open() {
        let waiters = waiting.withLock { waiting in
            waiting.isOpen = true
            defer { waiting.waiters.removeAll() }
            return Array(waiting.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        let id = waiting.withLock { waiting in
            defer { waiting.nextID += 1 }
            return waiting.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = waiting.withLock { waiting in
                    if waiting.isOpen || Task.isCancelled { return true }
                    waiting.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = waiting.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }
}

/// Values sent from any task, read in order by a test that awaits each one.
struct Signals<Value: Sendable>: Sendable {
    let stream: AsyncStream<Value>
    let continuation: AsyncStream<Value>.Continuation

    init() {
        (stream, continuation) = AsyncStream<Value>.makeStream()
    }

    func send(_ value: Value) {
        continuation.yield(value)
    }

    /// The next value sent (or `nil` if the stream ended).
    func next() async -> Value? {
        var iterator = stream.makeAsyncIterator()
        return await iterator.next()
    }
}
