public import Synchronization

/// The store's state and the subscribers to its changes, behind one lock.
///
/// Reducing happens inside the lock, in place, so the state's storage stays uniquely referenced
/// and copy-on-write never copies it on the dispatch path. Subscribing happens inside the same
/// lock, so a new subscriber's first value and the changes that follow form one unbroken
/// sequence.
@usableFromInline
final class StateCell<State: Sendable>: Sendable {
    @usableFromInline
    struct Subscriber: Sendable {
        let id: UInt64
        @usableFromInline let deliver: @Sendable (State) -> Void
        let finish: (@Sendable () -> Void)?
    }

    @usableFromInline
    struct Contents: Sendable {
        @usableFromInline var state: State
        @usableFromInline var subscribers: [Subscriber] = []
        var nextSubscriberID: UInt64 = 0

        init(state: State) { self.state = state }
    }

    @usableFromInline let contents: Mutex<Contents>

    @usableFromInline
    init(_ state: State) {
        contents = Mutex(Contents(state: state))
    }

    @inlinable var state: State {
        contents.withLock { $0.state }
    }

    /// Applies `reduce` in place and returns the new state with the subscribers to tell.
    @inlinable
    func reduce(_ reduce: (inout State) -> Void) -> (state: State, subscribers: [Subscriber]) {
        contents.withLock { contents in
            reduce(&contents.state)
            return (contents.state, contents.subscribers)
        }
    }

    /// Adds a subscriber; with `includingCurrent`, `deliver` receives the current state at once,
    /// inside the lock, so it must only hand the value on (as `AsyncStream.Continuation.yield`
    /// does). Returns a function that removes the subscriber.
    func subscribe(
        includingCurrent: Bool,
        deliver: @escaping @Sendable (State) -> Void,
        finish: (@Sendable () -> Void)?
    ) -> @Sendable () -> Void {
        let id = contents.withLock { contents in
            let id = contents.nextSubscriberID
            contents.nextSubscriberID += 1
            contents.subscribers.append(Subscriber(id: id, deliver: deliver, finish: finish))
            if includingCurrent { deliver(contents.state) }
            return id
        }
        return { [weak self] in
            self?.contents.withLock { $0.subscribers.removeAll { $0.id == id } }
        }
    }

    /// Ends every subscription (the store is going away).
    func finishAll() {
        let subscribers = contents.withLock { contents in
            defer { contents.subscribers.removeAll() }
            return contents.subscribers
        }
        for subscriber in subscribers { subscriber.finish?() }
    }
}
