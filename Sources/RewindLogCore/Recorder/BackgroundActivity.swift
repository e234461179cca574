import Dispatch
import Foundation
import Synchronization

/// Work the system should let finish before it suspends the app: on Apple platforms it runs
/// inside `ProcessInfo.performExpiringActivity` (the Foundation form of a background-task
/// assertion, about 30 s), elsewhere simply on the calling thread. The caller waits for it
/// either way.
final class BackgroundActivity: Sendable {
    private let work: @Sendable () throws(EventLogError) -> Void
    private let started = Atomic<Bool>(false)
    private let outcome = Mutex<Result<Void, EventLogError>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    private init(_ work: @escaping @Sendable () throws(EventLogError) -> Void) {
        self.work = work
    }

    /// Runs `work` as an activity the system lets finish, and returns (or throws) its outcome.
    static func run(reason: String, _ work: @escaping @Sendable () throws(EventLogError) -> Void) throws(EventLogError) {
        let activity = BackgroundActivity(work)
        #if canImport(Darwin)
        ProcessInfo.processInfo.performExpiringActivity(withReason: reason) { _ in
            // Called once with `false` and the time granted — or with `true` alone when none
            // could be, and then the work runs anyway, unprotected. A later `true` while it runs
            // only says the time is nearly up: the work goes on (``start()`` runs it once).
            activity.start()
        }
        #else
        activity.start()
        #endif
        activity.done.wait()
        try activity.outcome.withLock { $0 }?.get()
    }

    /// Runs the work the first time it is called; later calls return at once.
    private func start() {
        guard started.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        let result: Result<Void, EventLogError>
        do throws(EventLogError) {
            try work()
            result = .success(())
        } catch {
            result = .failure(error)
        }
        outcome.withLock { $0 = result }
        done.signal()
    }
}
