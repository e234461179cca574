import Dispatch
import Foundation
import Observation
import Rewind
import RewindTestSupport
import Synchronization
import Testing

/// `ObservedStore`: a store's state, or a scoped part, for SwiftUI — `@Observable`, updated on
/// the main actor, untouched by changes elsewhere in the state. (Observation runs on Linux too.)
@Suite("ObservedStore")
@MainActor
struct ObservedStoreTests {
    typealias App = StoreProjectionTests.App
    typealias AppAction = StoreProjectionTests.AppAction

    /// Waits until the main actor has taken every change handed to it so far: hops are queued in
    /// order on the main queue, so one more hop queued now runs after them.
    static func drainMainQueue() async {
        await withCheckedContinuation { continuation in DispatchQueue.main.async { continuation.resume() } }
    }

    /// Marks the main queue, where the main actor's jobs run (on Linux the queue may be drained
    /// by a thread other than the process's first, so `Thread.isMainThread` cannot tell).
    static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// Whether reading `read` is told of a change before `body` ends, and whether on the main queue.
    static func changes(of read: @escaping () -> Void, during body: () async -> Void) async -> (changed: Bool, onMain: Bool) {
        let seen = Mutex<(changed: Bool, onMain: Bool)>((false, true))
        let key = mainQueueKey
        withObservationTracking(read) {
            let onMain = DispatchQueue.getSpecific(key: key) == true
            seen.withLock { $0 = (true, $0.onMain && onMain) }
        }
        await body()
        return seen.withLock { $0 }
    }

    @Test("a scoped view follows its part on the main actor and ignores changes elsewhere")
    func followsItsPart() async {
        let store = Store(initialState: App(), reducer: StoreProjectionTests.appReducer)
        let left = store.scope(state: \.left, action: AppAction.left).observed()
        #expect(left.state.count == 0)

        // 500 actions on the other part, from another thread: no change is published.
        let elsewhere = await Self.changes(of: { _ = left.state }) {
            await Task.detached { for _ in 0..<500 { store.dispatch(.right(.add(1))) } }.value
            await Self.drainMainQueue()
        }
        #expect(!elsewhere.changed, "a change to another part re-rendered the view")
        #expect(store.state.right.count == 500 && left.state.count == 0)

        // 1,000 on its own part: published, on the main thread, ending at the store's state.
        let own = await Self.changes(of: { _ = left.state }) {
            await Task.detached { for _ in 0..<1_000 { store.dispatch(.left(.add(1))) } }.value
            await Self.drainMainQueue()
        }
        #expect(own.changed && own.onMain)
        #expect(left.state.count == 1_000 && left.state == store.state.left)
    }

    @Test("dispatch goes to the store with the caller's source; releasing the view stops following and keeps the store working")
    func dispatchesAndReleases() async {
        let sources = Recorded<DispatchedAction<AppAction>>()
        let store = Store(
            initialState: App(), reducer: StoreProjectionTests.appReducer,
            middleware: Middleware(didReduce: { dispatched, _, _ in sources.append(dispatched) })
        )
        var observed: ObservedStore<App, AppAction>? = store.observed()
        weak let released = observed
        let line: UInt = #line + 1
        observed?.dispatch(.left(.add(2)), info: "tap")
        await Self.drainMainQueue()
        #expect(observed?.state.left.count == 2)
        #expect(sources.all.first?.source.line == line && sources.all.first?.source.info == "tap")
        observed = nil
        #expect(released == nil)
        store.dispatch(.left(.add(1)))
        await Self.drainMainQueue()
        #expect(store.state.left.count == 3)
    }
}
