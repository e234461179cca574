@preconcurrency public import OpenCombine
public import Rewind
import Synchronization

/// A store's state as an OpenCombine publisher: the current state on subscription, then the
/// state after every action, in timeline order. It never fails and finishes when the store goes.
///
/// ```swift
/// store.publisher
///     .map(\.cart.total)
///     .removeDuplicates()
///     .sink { total in totalLabel.text = "\(total)" }
///     .store(in: &cancellables)
/// ```
///
/// Values are delivered synchronously on the thread that reduced the action (the subscriber's
/// thread for the first one), honouring the subscriber's demand: states beyond the demand wait
/// in a buffer, like `CurrentValueSubject`'s subscribers'.
public struct StatePublisher<Store: StoreType>: Publisher {
    public typealias Output = Store.State
    public typealias Failure = Never

    let store: Store

    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
        let subscription = StateSubscription(subscriber: AnySubscriber(subscriber))
        subscriber.receive(subscription: subscription)
        subscription.attach(to: store)
    }
}

extension StoreType {
    /// The state now and after every action, as an OpenCombine publisher.
    public var publisher: StatePublisher<Self> {
        StatePublisher(store: self)
    }
}

/// One subscriber's view of a store: buffers states and hands them on as demand allows, one
/// at a time and in order.
// @unchecked: the subscriber (not Sendable: OpenCombine predates Sendable) is only called by
// whichever thread holds `isDelivering`, so calls never overlap; everything else is in `box`.
private final class StateSubscription<State: Sendable>: Subscription, @unchecked Sendable {
    private struct Box {
        var buffer = PendingActions<State>()
        var demand = Subscribers.Demand.none
        var isDelivering = false
        /// Still `false` while the store hands over its current state under its own lock.
        var isAttached = false
        var isFinished = false
        var isCancelled = false
        var unsubscribe: (@Sendable () -> Void)?
    }

    private let subscriber: AnySubscriber<State, Never>
    private let box = Mutex(Box())

    init(subscriber: AnySubscriber<State, Never>) {
        self.subscriber = subscriber
    }

    deinit {
        // A subscriber that lets go without cancelling must not leave an entry in the store.
        box.withLock { $0.unsubscribe }?()
    }

    func attach<Store: StoreType>(to store: Store) where Store.State == State {
        let unsubscribe = store._subscribe(
            includingCurrent: true,
            deliver: { [weak self] state in self?.enqueue(state) },
            finish: { [weak self] in self?.finish() }
        )
        let cancelledMeanwhile = box.withLock { box in
            box.isAttached = true
            box.unsubscribe = unsubscribe
            return box.isCancelled
        }
        if cancelledMeanwhile { unsubscribe() }
        deliverWhileDemanded()
    }

    func request(_ demand: Subscribers.Demand) {
        box.withLock { $0.demand += demand }
        deliverWhileDemanded()
    }

    func cancel() {
        let unsubscribe = box.withLock { box in
            box.isCancelled = true
            box.buffer = PendingActions()
            defer { box.unsubscribe = nil }
            return box.unsubscribe
        }
        unsubscribe?()
    }

    private func enqueue(_ state: State) {
        let deliverNow = box.withLock { box in
            guard !box.isCancelled else { return false }
            box.buffer.append(state)
            return box.isAttached
        }
        if deliverNow { deliverWhileDemanded() }
    }

    private func finish() {
        box.withLock { $0.isFinished = true }
        deliverWhileDemanded()
    }

    private enum Next {
        case value(State)
        case completion
        case none
    }

    private func deliverWhileDemanded() {
        let claimed = box.withLock { box in
            if box.isDelivering || !box.isAttached { return false }
            box.isDelivering = true
            return true
        }
        guard claimed else { return }
        while true {
            let next: Next = box.withLock { box in
                if box.isCancelled { box.isDelivering = false; return .none }
                if box.demand > 0, let state = box.buffer.popFirst() {
                    box.demand -= 1
                    return .value(state)
                }
                if box.isFinished && box.buffer.isEmpty {
                    box.isCancelled = true
                    box.isDelivering = false
                    return .completion
                }
                box.isDelivering = false
                return .none
            }
            switch next {
            case let .value(state):
                let more = subscriber.receive(state)
                box.withLock { $0.demand += more }
            case .completion:
                subscriber.receive(completion: .finished)
                return
            case .none:
                return
            }
        }
    }
}
