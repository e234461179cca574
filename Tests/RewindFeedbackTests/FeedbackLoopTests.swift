import Dispatch
import Rewind
import RewindFeedback
import RewindTestSupport
import Synchronization
import Testing

/// A search screen: a query starts a lookup, whose result comes back as an event.
struct Search: Equatable, Sendable {
    var query: Int?
    var results: [Int] = []

    enum Event: Equatable, Sendable {
        case search(Int)
        case found(Int)
    }

    static let reducer = Reducer<Search, Event> { search, event in
        switch event {
        case let .search(query): search.query = query
        case let .found(result): search.results.append(result); search.query = nil
        }
    }
}

/// Runs jobs on one serial queue that it marks, and counts them.
final class MarkedExecutor: TaskExecutor {
    static let mark = DispatchSpecificKey<String>()
    let queue = DispatchQueue(label: "feedback-executor")
    let jobs = Mutex(0)

    init() {
        queue.setSpecific(key: Self.mark, value: "feedback-executor")
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0 += 1 }
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// The mark of the queue running the caller, if it is this executor's.
    static func currentMark() -> String? {
        DispatchQueue.getSpecific(key: mark)
    }
}

struct Failure: Error, Equatable {}

@Suite("FeedbackLoop")
struct FeedbackLoopTests {
    @Test("cancelOnNewState cancels the work for the previous state; only the latest answers")
    func cancelOnNewState() async throws {
        let gates = [1: Gate(), 2: Gate()]
        let started = Signals<Int>()
        let cancelled = Recorded<Int>()
        let loop = FeedbackLoop(initialState: Search(), reducer: Search.reducer) {
            Feedback("lookup") { (search: Search) in
                guard let query = search.query else { return nil }
                started.send(query)
                await withTaskCancellationHandler {
                    await gates[query]!.wait()
                } onCancel: {
                    cancelled.append(query)
                }
                return .found(query)
            }
        }
        let running = loop.start()
        loop.dispatch(.search(1))
        #expect(await started.next() == 1)
        loop.dispatch(.search(2))
        #expect(await started.next() == 2)
        #expect(cancelled.all == [1])
        gates[1]!.open()
        gates[2]!.open()
        await loop.waitUntilSettled()
        #expect(loop.state.results == [2], "the cancelled lookup's answer never arrives")
        running.stop()
    }

    @Test("continueOnNewState lets earlier work finish and answer")
    func continueOnNewState() async throws {
        let gates = [1: Gate(), 2: Gate()]
        let started = Signals<Int>()
        let loop = FeedbackLoop(initialState: Search(), reducer: Search.reducer) {
            Feedback("lookup", strategy: .continueOnNewState) { (search: Search) in
                guard let query = search.query else { return nil }
                started.send(query)
                await gates[query]!.wait()
                return .found(query)
            }
        }
        let running = loop.start()
        loop.dispatch(.search(1))
        #expect(await started.next() == 1)
        loop.dispatch(.search(2))
        #expect(await started.next() == 2)
        gates[2]!.open()
        var states = loop.states.makeAsyncIterator()
        while let state = await states.next(), state.results != [2] {}
        gates[1]!.open()
        while let state = await states.next(), state.results != [2, 1] {}
        await loop.waitUntilSettled()
        #expect(loop.state.results == [2, 1])
        running.stop()
    }

    @Test("a state the filter rejects cancels running work and starts none")
    func filterCancels() async throws {
        let started = Signals<Int>()
        let cancelled = Recorded<Int>()
        let loop = FeedbackLoop(initialState: Search(), reducer: Search.reducer) {
            Feedback("lookup") { (search: Search) in
                started.send(search.query!)
                await withTaskCancellationHandler {
                    await Gate().wait()
                } onCancel: {
                    cancelled.append(search.query!)
                }
                return nil
            }
            .filtered { $0.query != nil }
        }
        let running = loop.start()
        loop.dispatch(.search(7))
        #expect(await started.next() == 7)
        loop.dispatch(.found(0))   // clears the query: the filter now rejects the state
        await loop.waitUntilSettled()
        #expect(cancelled.all == [7])
        running.stop()
    }

    @Test("a lensed feedback sees only its part of the state")
    func lensing() async {
        struct Parent: Equatable, Sendable {
            var child = 0
            var other = "untouched"
        }
        let seen = Recorded<Int>()
        let childFeedback = Feedback<Int, Int>("child") { child in
            seen.append(child)
            return child < 3 ? 1 : nil
        }
        let loop = FeedbackLoop(
            initialState: Parent(),
            reducer: Reducer { parent, step in parent.child += step },
            feedbacks: [childFeedback.lensing(on: \Parent.child)]
        )
        let running = loop.start()
        await loop.waitUntilSettled()
        #expect(seen.all == [0, 1, 2, 3])
        #expect(loop.state == Parent(child: 3, other: "untouched"))
        running.stop()
    }

    @Test("a stream feedback sees the state at start and each settled state after")
    func streamFeedback() async {
        let seen = Recorded<Levels>()
        let loop = FeedbackLoop(initialState: Levels(left: 0, right: 4), reducer: Levels.reducer) {
            Levels.leftFeedback
            Levels.rightFeedback
            Feedback<Levels, Levels.Event>("watch", states: { states in
                states.compactMap { levels -> Levels.Event? in
                    seen.append(levels)
                    return nil
                }
            })
        }
        let running = loop.start()
        await loop.waitUntilSettled()
        // Settled states only: (1, 4) between the two events of the first turn is not among them.
        let expected = [Levels(left: 0, right: 4), Levels(left: 1, right: 3), Levels(left: 2, right: 2)]
        var states = loop.states.makeAsyncIterator()
        while await states.next() != expected.last {}
        while seen.all.count < expected.count { await Task.yield() }
        #expect(seen.all == expected)
        running.stop()
    }

    @Test("an effect runs on the executor it was given")
    func executor() async {
        let executor = MarkedExecutor()
        let marks = Recorded<String?>()
        let loop = FeedbackLoop(initialState: Search(), reducer: Search.reducer) {
            Feedback("lookup", on: .executor(executor)) { (search: Search) in
                marks.append(MarkedExecutor.currentMark())
                guard let query = search.query else { return nil }
                return .found(query)
            }
        }
        let running = loop.start()
        loop.dispatch(.search(3))
        await loop.waitUntilSettled()
        #expect(loop.state.results == [3])
        // The initial state, the query, and the state after the answer: three runs, all there.
        #expect(marks.all == Array(repeating: "feedback-executor", count: 3))
        #expect(executor.jobs.withLock { $0 } >= 3)
        running.stop()
    }

    @Test("a failing effect is reported with its feedback's source, and the loop goes on")
    func failure() async {
        let failures = Recorded<EffectFailure>()
        let loop = FeedbackLoop(
            initialState: Search(), reducer: Search.reducer, onEffectFailure: { failures.append($0) }
        ) {
            Feedback("flaky lookup") { (search: Search) in
                guard let query = search.query else { return nil }
                if query.isMultiple(of: 2) { throw Failure() }
                return .found(query)
            }
        }
        let running = loop.start()
        loop.dispatch(.search(2))
        await loop.waitUntilSettled()
        loop.dispatch(.search(3))
        await loop.waitUntilSettled()
        #expect(loop.state.results == [3])
        #expect(failures.all.count == 1)
        #expect(failures.all.first?.source.info == "flaky lookup")
        #expect(failures.all.first?.source.origin == .feedback)
        #expect(failures.all.first?.error is Failure)
        running.stop()
    }

    @Test("events dispatched before start are reduced; feedbacks answer only once started")
    func dispatchBeforeStart() async {
        let loop = Counter.loop(limit: 2)
        loop.dispatch(.start)
        await loop.waitUntilSettled()
        #expect(loop.state == Counter(value: 0, isCounting: true))
        let running = loop.start()
        await loop.waitUntilSettled()
        #expect(loop.state == Counter(value: 2, isCounting: false))
        running.stop()
        loop.dispatch(.start)
        await loop.waitUntilSettled()
        #expect(loop.state == Counter(value: 2, isCounting: true), "a stopped loop's feedbacks stay quiet")
    }

    @Test("a stopped loop is released, with its never-ending work cancelled")
    func stoppedLoopIsReleased() async {
        let started = Signals<Void>()
        let cancelled = Signals<Void>()
        weak var weakLoop: FeedbackLoop<Search, Search.Event>?
        do {
            let loop = FeedbackLoop(initialState: Search(query: 1), reducer: Search.reducer) {
                Feedback("forever") { (_: Search) in
                    started.send(())
                    await withTaskCancellationHandler {
                        await Gate().wait()
                    } onCancel: {
                        cancelled.send(())
                    }
                    return nil
                }
                Feedback<Search, Search.Event>("stream", states: { states in states.map { _ in .found(0) } })
                    .filtered { _ in false }
            }
            weakLoop = loop
            let running = loop.start()
            #expect(await started.next() != nil)
            running.stop()
        }
        #expect(await cancelled.next() != nil)
        #expect(weakLoop == nil)
    }

    @Test("the running handle keeps the loop alive; releasing it, as its owner goes, stops and frees the loop")
    func ownerLifetime() async {
        final class Owner {
            var running: FeedbackLoop<Counter, Counter.Event>.Running?
        }
        weak var weakLoop: FeedbackLoop<Counter, Counter.Event>?
        var owner: Owner? = Owner()
        do {
            let loop = Counter.loop(limit: 2)
            weakLoop = loop
            owner?.running = loop.start()
        }
        #expect(weakLoop != nil, "the owner's handle keeps the loop")
        #expect(weakLoop?.isRunning == true)
        owner = nil
        #expect(weakLoop == nil)
    }

    @Test("a handle from an earlier run cannot stop a later run")
    func staleHandle() {
        let loop = Counter.loop(limit: 2)
        var first: FeedbackLoop<Counter, Counter.Event>.Running? = loop.start()
        first?.stop()
        #expect(!loop.isRunning)
        let second = loop.start()
        first = nil
        #expect(loop.isRunning)
        second.stop()
        #expect(!loop.isRunning)
    }
}

@Suite("FeedbackLoop on an actor")
struct FeedbackLoopActorTests {
    // The limit ends a hang (a main-actor hop never taken); it is wide because the whole suite
    // runs in parallel on a pool of two threads, and waiting for a thread counts against it:
    // one CI run saw this test wait more than a minute behind the blocking tests.
    @Test("a feedback whose closure is isolated to the main actor runs there", .timeLimit(.minutes(10)))
    func mainActorFeedback() async {
        let onMain = Recorded<Bool>()
        let loop = FeedbackLoop(initialState: Search(), reducer: Search.reducer) {
            Feedback("render") { @MainActor (search: Search) async in
                MainActor.assertIsolated()
                onMain.append(true)
                return search.query.map(Search.Event.found)
            }
        }
        let running = loop.start()
        loop.dispatch(.search(4))
        await loop.waitUntilSettled()
        #expect(loop.state.results == [4])
        #expect(onMain.all.count == 3)
        running.stop()
    }
}
