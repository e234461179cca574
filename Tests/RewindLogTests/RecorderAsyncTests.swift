import Dispatch
import Foundation
import Rewind
import RewindExamples
import RewindLog
import RewindTestSupport
import Testing

/// `await recorder.flush()` and `await recorder.close()`: the wait holds no thread of the
/// caller's executor, so tasks waiting on a slow store leave the rest of the app's tasks running.
/// Releasing a recorder does not wait either.
@Suite("Recorder: waiting off the caller's thread")
struct RecorderAsyncTests {
    static let app = AppIdentity(id: "com.example.shop")

    @Test("flushes waiting on a store that does not answer leave their thread free; they return once it answers")
    func flushHoldsNoPoolThread() async throws {
        let log = MemoryLog()
        var configuration = RecorderConfiguration<ShopState, ShopAction>()
        configuration.stallLimit = .seconds(60)
        let recorder = Recorder<ShopState, ShopAction>(into: RecordingDestination(log), app: Self.app, configuration: configuration)
        let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
        store.dispatch(.cart(.clear))
        try await recorder.flush()
        log.isStalled.store(true, ordering: .releasing)
        store.dispatch(.cart(.applyDiscount(code: "WAIT")))
        // The test lets it answer once it has checked; it answers after 30 s whatever happens,
        // so that a flush blocking its thread fails the bound below instead of hanging the suite.
        DispatchQueue.global().asyncAfter(deadline: .now() + 30) { log.isStalled.store(false, ordering: .releasing) }

        let clock = ContinuousClock()
        let started = clock.now
        // The flushes, and then an unrelated task, on one thread of their own: a flush that
        // blocked its thread would hold the unrelated task until the store answers. (The
        // suite's other tests share the global pool, so its threads could not tell.)
        let thread = OneThreadExecutor()
        let flushed = Recorded<Int>()
        let flushes = (0..<4).map { index in Task(executorPreference: thread) { try await recorder.flush(); flushed.append(index) } }
        // Queued after the flushes; when it ran, and whether a flush had returned by then, are
        // taken on that thread, so that the global pool's load (the suite's other tests, which
        // can hold this test's own task for longer than the store's 30 s) does not count.
        let (ran, flushedBefore) = await Task(executorPreference: thread) { (clock.now, flushed.all.count) }.value
        let unrelated = ran - started
        #expect(unrelated < .seconds(20), "an unrelated task waited \(unrelated) behind the flushes")
        #expect(flushedBefore == 0, "the flushes waited for the store")
        log.isStalled.store(false, ordering: .releasing)
        for flush in flushes { try await flush.value }
        try await recorder.close()
        #expect(try log.sessions().map(\.eventCount) == [2])
    }

    @Test("currentSession() waits for a store that does not answer without holding its thread; it then gives what session gives")
    func currentSessionHoldsNoPoolThread() async throws {
        let log = MemoryLog()
        log.isStalled.store(true, ordering: .releasing)
        let recorder = Recorder<ShopState, ShopAction>(into: RecordingDestination(log), app: Self.app)
        let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
        // Answers when the test lets it, or after 30 s (so that a wait holding its thread fails
        // the bound below rather than hanging).
        DispatchQueue.global().asyncAfter(deadline: .now() + 30) { log.isStalled.store(false, ordering: .releasing) }
        let clock = ContinuousClock()
        let started = clock.now
        let thread = OneThreadExecutor()
        let answered = Recorded<Bool>()
        let asked = Task(executorPreference: thread) {
            let session = await recorder.currentSession()
            answered.append(true)
            return session
        }
        // Taken on that thread, as above.
        let (ran, answeredBefore) = await Task(executorPreference: thread) { (clock.now, answered.all.count) }.value
        let unrelated = ran - started
        #expect(unrelated < .seconds(20), "an unrelated task waited \(unrelated) behind currentSession()")
        #expect(answeredBefore == 0, "it waits for the store to begin the session")
        log.isStalled.store(false, ordering: .releasing)
        let session = try #require(await asked.value)
        #expect(session.id == recorder.session?.id)
        store.dispatch(.cart(.clear))
        try await recorder.close()
    }

    @Test("an async flush throws what could not be written; an async close commits the rest and refuses what follows")
    func failuresAndClose() async throws {
        let log = MemoryLog()
        let failures = Recorded<RecorderFailure<ShopAction>>()
        var configuration = RecorderConfiguration<ShopState, ShopAction>()
        configuration.onFailure = { failures.append($0) }
        let recorder = Recorder<ShopState, ShopAction>(into: RecordingDestination(log), app: Self.app, configuration: configuration)
        let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
        store.dispatch(.cart(.clear))
        try await recorder.flush()
        log.isFailing.store(true, ordering: .releasing)
        store.dispatch(.cart(.applyDiscount(code: "LOST")))
        await #expect(throws: EventLogError.self) { try await recorder.flush() }
        log.isFailing.store(false, ordering: .releasing)
        store.dispatch(.cart(.removeDiscount))
        try await recorder.close()
        store.dispatch(.cart(.clear))
        #expect(failures.all.last.map { $0.unrecorded.map(\.action) } == [.cart(.clear)], "refused after close")
        #expect(try log.sessions().map(\.eventCount).reduce(0, +) == 2)
        #expect(try log.gaps().map(\.lost) == [1])
    }
    @Test("releasing the store and its recorder does not wait for a store that does not answer; the buffered actions land once it does")
    func releaseDoesNotWait() async throws {
        let log = MemoryLog()
        var configuration = RecorderConfiguration<ShopState, ShopAction>()
        configuration.stallLimit = .seconds(60)
        var recorder: Recorder<ShopState, ShopAction>? = Recorder(into: RecordingDestination(log), app: Self.app, configuration: configuration)
        weak let released = recorder
        var store: Store<ShopState, ShopAction>? = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder!.middleware)
        recorder = nil
        store?.dispatch(.cart(.clear))
        try await released?.flush()
        log.isStalled.store(true, ordering: .releasing)
        for index in 1...20 { store?.dispatch(.cart(.applyDiscount(code: "R\(index)"))) }
        // Answers when the test lets it, or after 30 s, so that a release that waits fails the
        // bound below rather than hanging.
        DispatchQueue.global().asyncAfter(deadline: .now() + 30) { log.isStalled.store(false, ordering: .releasing) }

        let clock = ContinuousClock()
        let began = clock.now
        store = nil
        let releasing = clock.now - began
        #expect(released == nil, "the store owned the recorder")
        #expect(releasing < .seconds(20), "releasing waited \(releasing) for the store")
        #expect(try log.sessions().map(\.eventCount) == [1], "nothing more written while the store did not answer")
        log.isStalled.store(false, ordering: .releasing)
        let deadline = clock.now + .seconds(30)
        while try log.sessions().map(\.eventCount) != [21], clock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(try log.sessions().map(\.eventCount) == [21], "the writer committed what was buffered after the release")
    }

    @Test("a last commit that fails after the release reaches onFailure, with the actions it could not write")
    func failureAfterReleaseIsReported() async throws {
        let log = MemoryLog()
        let failures = Recorded<RecorderFailure<ShopAction>>()
        var configuration = RecorderConfiguration<ShopState, ShopAction>()
        configuration.onFailure = { failures.append($0) }
        var store: Store<ShopState, ShopAction>? = Store(
            initialState: ShopState(), reducer: Shop.reducer,
            middleware: Recorder<ShopState, ShopAction>(into: RecordingDestination(log), app: Self.app, configuration: configuration).middleware
        )
        store?.dispatch(.cart(.clear))
        log.isFailing.store(true, ordering: .releasing)
        store?.dispatch(.cart(.applyDiscount(code: "LAST")))
        store = nil
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(30)
        while !failures.all.contains(where: { $0.unrecorded.map(\.action).contains(.cart(.applyDiscount(code: "LAST"))) }), clock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(failures.all.flatMap { $0.unrecorded.map(\.action) }.contains(.cart(.applyDiscount(code: "LAST"))), "\(failures.all)")
    }
}

/// A task executor that runs its jobs one at a time on a serial queue: one thread, as a main
/// actor has.
final class OneThreadExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "one-thread-executor")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
