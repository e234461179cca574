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
///
/// It is also the executor a store runs its copies on (``PostgresLog/copy(rows:_:)``): a task that
/// must not need the pool either.
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
        let result = Mutex<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task(executorPreference: self) {
            let outcome: Result<T, any Error>
            do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        // Set before the signal the wait returned on.
        guard let outcome = result.withLock({ $0 }) else { preconditionFailure("the task signalled before storing its result") }
        return try outcome.get()
    }
}
