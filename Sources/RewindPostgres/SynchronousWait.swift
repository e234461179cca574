import Dispatch
import Synchronization

/// Runs async work to its end from synchronous code: the recorder's writer is a thread of its
/// own, and the thread that binds the recorder's middleware may be anything, a task of Swift's
/// cooperative pool included.
///
/// The work runs on a serial queue of its own (its task's executor preference), not on the
/// cooperative pool. So waiting for it never needs a pool thread that the waiting thread might
/// be holding: with a pool as wide as the cores, and every pool thread waiting, work that
/// needed the pool would never start. (postgres-nio completes its queries on its event loops,
/// which are threads of their own too.)
final class SynchronousWait: TaskExecutor {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    /// Runs `body` and waits for its result. Never call it from `body` itself.
    func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        try start(body).wait()
    }

    /// Starts `body` and returns at once: ``Pending/wait()`` gives its result. The reader uses
    /// it to ask for the next page of a replay while the caller folds the one it has.
    func start<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) -> Pending<T> {
        let pending = Pending<T>()
        Task(executorPreference: self) {
            let outcome: Result<T, any Error>
            do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
            pending.finish(outcome)
        }
        return pending
    }

    /// The result of work ``start(_:)`` began, once it ends.
    final class Pending<T: Sendable>: Sendable {
        private let result = Mutex<Result<T, any Error>?>(nil)
        private let done = DispatchSemaphore(value: 0)

        fileprivate func finish(_ outcome: Result<T, any Error>) {
            result.withLock { $0 = outcome }
            done.signal()
        }

        /// Waits for the work's end and gives its result.
        func wait() throws -> T {
            done.wait()
            // For whoever waits next: the result stays.
            done.signal()
            // Set before the signal the wait returned on.
            guard let outcome = result.withLock({ $0 }) else { preconditionFailure("the task signalled before storing its result") }
            return try outcome.get()
        }
    }
}
