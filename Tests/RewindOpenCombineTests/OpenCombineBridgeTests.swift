@preconcurrency import OpenCombine
import Rewind
import RewindFeedback
import RewindOpenCombine
import RewindTestSupport
import Synchronization
import Testing

struct Count: Equatable, Sendable {
    var value = 0
}

enum CountEvent: Equatable, Sendable {
    case add(Int)
}

let countReducer = Reducer<Count, CountEvent> { count, event in
    switch event {
    case let .add(amount): count.value += amount
    }
}

/// Requests a fixed number of values up front, and more on demand, recording what it got.
final class DemandingSubscriber: Subscriber, @unchecked Sendable {
    typealias Input = Count
    typealias Failure = Never

    let received = Recorded<Int>()
    let completed = Mutex(false)
    private let subscription = Mutex<(any Subscription)?>(nil)
    private let initialDemand: Int

    init(initialDemand: Int) {
        self.initialDemand = initialDemand
    }

    func receive(subscription: any Subscription) {
        self.subscription.withLock { $0 = subscription }
        subscription.request(.max(initialDemand))
    }

    func receive(_ input: Count) -> Subscribers.Demand {
        received.append(input.value)
        return .none
    }

    func receive(completion: Subscribers.Completion<Never>) {
        completed.withLock { $0 = true }
    }

    func request(_ count: Int) {
        subscription.withLock { $0 }?.request(.max(count))
    }
}

@Suite("OpenCombine bridge")
struct OpenCombineBridgeTests {
    @Test("a store's publisher sends the current state, then every change, in order")
    func statePublisher() {
        let store = Store(initialState: Count(), reducer: countReducer)
        store.dispatch(.add(1))
        let values = Recorded<Int>()
        let cancellable = store.publisher.map(\.value).sink { values.append($0) }
        store.dispatch(.add(2))
        store.dispatch(.add(3))
        #expect(values.all == [1, 3, 6])
        cancellable.cancel()
        store.dispatch(.add(4))
        #expect(values.all == [1, 3, 6], "nothing after cancel")
    }

    @Test("states beyond the subscriber's demand wait for it, and the publisher finishes with the store")
    func demand() {
        var store: Store<Count, CountEvent>? = Store(initialState: Count(), reducer: countReducer)
        let subscriber = DemandingSubscriber(initialDemand: 2)
        store?.publisher.subscribe(subscriber)
        for amount in 1...3 { store?.dispatch(.add(amount)) }
        #expect(subscriber.received.all == [0, 1])
        subscriber.request(5)
        #expect(subscriber.received.all == [0, 1, 3, 6])
        #expect(!subscriber.completed.withLock { $0 })
        store = nil
        #expect(subscriber.completed.withLock { $0 })
    }

    @Test("a publisher's values are dispatched with the call site as their source")
    func dispatchFromPublisher() {
        let sources = Recorded<ActionSource>()
        let store = Store(
            initialState: Count(),
            reducer: countReducer,
            middleware: Middleware(didReduce: { dispatched, _, _ in sources.append(dispatched.source) })
        )
        let taps = PassthroughSubject<CountEvent, Never>()
        let subscription = store.dispatch(from: taps, info: "taps")
        taps.send(.add(2))
        taps.send(.add(5))
        #expect(store.state.value == 7)
        #expect(sources.all.allSatisfy { $0.info == "taps" && $0.file == "RewindOpenCombineTests/OpenCombineBridgeTests.swift" })
        subscription.cancel()
        taps.send(.add(100))
        #expect(store.state.value == 7)
    }

    @Test("feedbacks can answer with publishers, per state or over the state publisher")
    func publisherFeedbacks() async {
        let loop = FeedbackLoop(initialState: Count(), reducer: countReducer) {
            Feedback("climb", publisher: { (count: Count) in
                count.value < 5 ? Just(CountEvent.add(1)).eraseToAnyPublisher() : Empty().eraseToAnyPublisher()
            })
            Feedback("jump at five", statePublisher: { states in
                states.filter { $0.value == 5 }.map { _ in CountEvent.add(10) }
            })
        }
        let running = loop.start()
        var states = loop.states.makeAsyncIterator()
        while let state = await states.next(), state.value != 15 {}
        await loop.waitUntilSettled()
        #expect(loop.state.value == 15)
        running.stop()
    }

    @Test("a publisher's values as an async stream")
    func asyncValues() async {
        let values = [1, 2, 3].publisher.asyncValues
        var collected: [Int] = []
        for await value in values { collected.append(value) }
        #expect(collected == [1, 2, 3])
    }
}
