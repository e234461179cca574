/// A first-in, first-out queue of actions waiting for the store's timeline.
///
/// Two arrays, one filled and one drained in reverse, give amortised O(1) pushes and pops with
/// no allocation once both have grown to the queue's working size; the core module has no
/// dependencies, so swift-collections' `Deque` is not available here.
@usableFromInline
struct PendingActions<Element> {
    @usableFromInline var inbox: [Element] = []
    @usableFromInline var outbox: [Element] = []

    @inlinable init() {}

    @inlinable var isEmpty: Bool { inbox.isEmpty && outbox.isEmpty }

    @inlinable mutating func append(_ element: Element) {
        inbox.append(element)
    }

    @inlinable mutating func popFirst() -> Element? {
        if outbox.isEmpty {
            guard !inbox.isEmpty else { return nil }
            swap(&inbox, &outbox)
            outbox.reverse()
        }
        return outbox.popLast()
    }
}

extension PendingActions: Sendable where Element: Sendable {}
