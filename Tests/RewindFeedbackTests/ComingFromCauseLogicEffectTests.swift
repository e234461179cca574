import Rewind
import RewindFeedback
import RewindLog
import RewindReplay
import RewindTestSupport
import Testing

// The "Coming from cause-logic-effect" article's examples
// (RewindFeedback.docc/ComingFromCauseLogicEffect.md), kept compiling and true.

/// A counter that resets itself once it reaches three.
struct Tally: Codable, Equatable, Sendable {
    var count = 0

    enum Input: Codable, Equatable, Sendable { case increment, reset }

    static let reducer = Reducer<Tally, Input> { tally, input in
        switch input {
        case .increment: tally.count += 1
        case .reset: tally.count = 0
        }
    }

    static let resetAtThree = Reaction<Tally, Input>("reset at three") { changes in
        changes.compactMap { change in change.state.count >= 3 ? Input.reset : nil }
    }
}

@Suite("Coming from cause-logic-effect")
struct ComingFromCauseLogicEffectTests {
    @Test("cycle: inputs through the reducer, a reaction answering, the states out")
    func tallyCycle() async throws {
        let (taps, tap) = AsyncStream<Tally.Input>.makeStream()
        let states = cycle(
            inputs: [taps],
            initialState: Tally(),
            reducer: Tally.reducer,
            reactions: [Tally.resetAtThree]
        )
        var iterator = states.makeAsyncIterator()
        var seen = [await iterator.next()]
        for expected in [1, 2, 3, 0, 1] {
            if expected != 0 { tap.yield(.increment) }
            let state = await iterator.next()
            seen.append(state)
            #expect(state?.count == expected)
        }
        #expect(seen.map { $0?.count } == [0, 1, 2, 3, 0, 1])
    }

    @Test("a recorded cycle replays to its final state, with sources for inputs and reactions")
    func recordedCycle() async throws {
        let folder = try TemporaryDirectory()
        let log = try EventLog(path: folder.file("tally.rewind"))
        let recorder = Recorder<Tally, Tally.Input>(log: log, app: AppIdentity(id: "tally"))
        let (taps, tap) = AsyncStream<Tally.Input>.makeStream()
        let states = cycle(
            inputs: [taps],
            initialState: Tally(),
            reducer: Tally.reducer,
            reactions: [Tally.resetAtThree],
            middleware: recorder.middleware
        )
        // One tap at a time, each after the state the previous one led to.
        var iterator = states.makeAsyncIterator()
        var last = try #require(await iterator.next())
        for expected in [1, 2, 3, 0, 1] {
            if expected != 0 { tap.yield(.increment) }
            last = try #require(await iterator.next())
            #expect(last.count == expected)
        }
        #expect(last == Tally(count: 1))
        try await recorder.close()

        let reopened = try EventLog(path: folder.file("tally.rewind"), mode: .readOnly)
        let session = try #require(try reopened.sessions().first)
        #expect(try Replayer(log: reopened, reducer: Tally.reducer).finalState(session: session.id, fromStart: true) == last)
        var cursor = reopened.events()
        var sources: [String] = []
        while let event = try cursor.next() {
            sources.append("\(event.source.origin.rawValue) \(event.source.info ?? "")")
        }
        #expect(sources == ["call input 0", "call input 0", "call input 0", "feedback reset at three", "call input 0"])
    }

    @Test("when the states stop being read, the inputs and reactions are cancelled")
    func teardown() async {
        let inputEnded = Signals<Void>()
        let (taps, tap) = AsyncStream<Tally.Input>.makeStream()
        tap.onTermination = { _ in inputEnded.send(()) }
        let reading = Task {
            let states = cycle(inputs: [taps], initialState: Tally(), reducer: Tally.reducer)
            for await _ in states {}
        }
        tap.yield(.increment)
        reading.cancel()
        #expect(await inputEnded.next() != nil)
    }

    @Test("a cycle whose states are dropped unread is torn down too")
    func droppedStates() async {
        let inputEnded = Signals<Void>()
        let (taps, tap) = AsyncStream<Tally.Input>.makeStream()
        tap.onTermination = { _ in inputEnded.send(()) }
        do {
            _ = cycle(inputs: [taps], initialState: Tally(), reducer: Tally.reducer)
        }
        #expect(await inputEnded.next() != nil)
    }

    @Test("an activity tracker reports the span of overlapping work, once per change")
    func activityTracker() async throws {
        let activity = ActivityTracker()
        var changes = activity.isActive.makeAsyncIterator()
        #expect(await changes.next() == false)
        let first = Gate(), second = Gate()
        async let a: Int = activity.track { await first.wait(); return 1 }
        #expect(await changes.next() == true)
        async let b: Int = activity.track { await second.wait(); return 2 }
        first.open()
        #expect(await a == 1)
        #expect(activity.isActiveNow, "the second piece of work still runs")
        second.open()
        #expect(await b == 2)
        #expect(await changes.next() == false)
        #expect(!activity.isActiveNow)
    }

    @Test("an error router gathers errors from work, sequences and store effects")
    func errorRouter() async throws {
        let router = ErrorRouter()
        var errors = router.errors.makeAsyncIterator()

        let value: Int? = await router.catching { throw Failure() }
        #expect(value == nil)
        #expect(await errors.next() is Failure)

        let (numbers, feed) = AsyncThrowingStream<Int, any Error>.makeStream()
        feed.yield(1)
        feed.finish(throwing: Failure())
        var rerouted: [Int] = []
        for await number in router.rerouting(numbers) { rerouted.append(number) }
        #expect(rerouted == [1], "the sequence ends normally where it threw")
        #expect(await errors.next() is Failure)

        let store = Store(
            initialState: Tally(),
            reducer: Tally.reducer,
            middleware: Middleware(didReduce: { _, _, context in
                context.run(.run { _ in throw Failure() })
            }),
            onEffectFailure: router.effectFailureHandler
        )
        store.dispatch(.increment)
        let routed = try #require(await errors.next() as? EffectFailure)
        #expect(routed.error is Failure)
        #expect(routed.source.file == "RewindFeedbackTests/ComingFromCauseLogicEffectTests.swift")

        router.route(CancellationError())
        router.route(Failure())
        #expect(await errors.next() is Failure, "cancellation is never routed")
    }

    @Test("typed identifiers: a RawRepresentable struct per type is recorded as its raw value and replays")
    func typedIdentifiers() async throws {
        let folder = try TemporaryDirectory()
        let log = try EventLog(path: folder.file("ids.rewind"))
        let recorder = Recorder<Basket, Basket.Action>(log: log, app: AppIdentity(id: "basket"))
        let store = Store(initialState: Basket(), reducer: Basket.reducer, middleware: recorder.middleware)
        store.dispatch(.add(ProductID(rawValue: "p-1")))
        store.dispatch(.order(OrderID(rawValue: "o-7")))
        try await recorder.close()

        let reopened = try EventLog(path: folder.file("ids.rewind"), mode: .readOnly)
        var cursor = reopened.events()
        var payloads: [String] = []
        while let event = try cursor.next() { payloads.append(event.payloadText ?? "") }
        #expect(payloads.count == 2)
        #expect(payloads[0].contains("\"p-1\"") && payloads[1].contains("\"o-7\""))
        #expect(!payloads.joined().contains("rawValue"), "the raw value, not a wrapper")
        let session = try #require(try reopened.sessions().first)
        #expect(try Replayer(log: reopened, reducer: Basket.reducer).finalState(session: session.id, fromStart: true) == store.state)
    }
}

// The article's typed identifiers: one line per identified type.
struct ProductID: RawRepresentable, Hashable, Codable, Sendable { var rawValue: String }
struct OrderID: RawRepresentable, Hashable, Codable, Sendable { var rawValue: String }

struct Basket: Codable, Equatable, Sendable {
    var products: [ProductID] = []
    var orders: [OrderID] = []

    enum Action: Codable, Equatable, Sendable {
        case add(ProductID)
        case order(OrderID)
    }

    static let reducer = Reducer<Basket, Action> { basket, action in
        switch action {
        case .add(let product): basket.products.append(product)
        case .order(let order): basket.orders.append(order)
        }
    }
}
