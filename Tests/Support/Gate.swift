import Synchronization

/// Lets a test hold async work at a point until it opens the gate; waiting ends early when the
/// waiting task is cancelled.
public final class Gate: Sendable {
    private struct Waiting: Sendable {
        var isOpen = false
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextID: UInt64 = 0
    }

    private let waiting = Mutex(Waiting())

    public init() {}

    /// Lets every waiter, and every later one, through.
    public func open() {
        let waiters = waiting.withLock { waiting in
            waiting.isOpen = true
            defer { waiting.waiters.removeAll() }
            return Array(waiting.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the gate is open (at once if it is), or the task is cancelled.
    public func wait() async {
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
