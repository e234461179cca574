#if PostgreSQL
import Foundation
import Rewind
import RewindExamples
import Synchronization

/// The app of a soak: one thread dispatching the todo app's actions at a steady rate, timing each
/// dispatch. A thread of its own, not a task: a dispatch that waits must not hold the Swift
/// pool's threads, which the rest of the soak runs on.
final class SoakDispatcher: Sendable {
    private let store: Store<TodoState, TodoAction>
    private let actions: [DispatchedAction<TodoAction>]
    private let rate: Int
    private let count = Atomic<Int>(0)
    /// The longest dispatch, in nanoseconds: of the whole run, and since the sampler last asked.
    private let longestNanoseconds = Atomic<Int64>(0)
    private let recentNanoseconds = Atomic<Int64>(0)
    private let running = Atomic<Bool>(true)
    private let finished = DispatchSemaphore(value: 0)

    init(store: Store<TodoState, TodoAction>, actions: [DispatchedAction<TodoAction>], rate: Int) {
        self.store = store
        self.actions = actions
        self.rate = rate
    }

    /// How many actions were dispatched so far.
    var dispatched: Int { count.load(ordering: .acquiring) }
    /// The longest dispatch so far.
    var longest: Duration { .nanoseconds(longestNanoseconds.load(ordering: .acquiring)) }
    /// The longest dispatch since the last call.
    func takeRecentLongest() -> Duration { .nanoseconds(recentNanoseconds.exchange(0, ordering: .acquiringAndReleasing)) }

    func start() {
        Thread { [self] in
            let clock = ContinuousClock()
            let start = clock.now
            var index = 0
            while running.load(ordering: .acquiring) {
                // As many as the rate allows by now; a dispatch that waited is caught up on.
                let due = Int((clock.now - start).seconds * Double(rate))
                guard index < due else {
                    Thread.sleep(forTimeInterval: 0.000_5)
                    continue
                }
                let action = actions[index % actions.count]
                let before = clock.now
                store.dispatch(action.action, from: action.source)
                let took = (clock.now - before).nanoseconds
                index += 1
                count.store(index, ordering: .releasing)
                _ = longestNanoseconds.max(took, ordering: .relaxed)
                _ = recentNanoseconds.max(took, ordering: .relaxed)
            }
            finished.signal()
        }.start()
    }

    /// Stops dispatching; returns once the last dispatch returned.
    func stop() {
        running.store(false, ordering: .releasing)
        finished.wait()
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
    /// The duration in whole nanoseconds.
    var nanoseconds: Int64 { components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000 }
}
#endif
