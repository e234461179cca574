/// A first-in, first-out queue of actions waiting for the store's timeline.
///
/// Two arrays, one filled and one drained in reverse, give amortised O(1) pushes and pops with
/// no allocation once both have grown to the queue's working size; the core module has no
/// dependencies, so swift-collections' `Deque` is not available here. Feedback loops queue their
/// events in it too (`package`).
@usableFromInline
package struct PendingActions<Element> {
    @usableFromInline var inbox: [Element] = []
    @usableFromInline var outbox: [Element] = []

    @inlinable package init() {}

    @inlinable package var isEmpty: Bool { inbox.isEmpty && outbox.isEmpty }

    @inlinable package mutating func append(_ element: Element) {
        inbox.append(element)
    }

    @inlinable package mutating func popFirst() -> Element? {
        if outbox.isEmpty {
            guard !inbox.isEmpty else { return nil }
            swap(&inbox, &outbox)
            outbox.reverse()
        }
        return outbox.popLast()
    }
}

extension PendingActions: Sendable where Element: Sendable {}
