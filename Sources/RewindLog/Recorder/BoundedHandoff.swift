import Dispatch
import Synchronization

/// A FIFO between two threads that holds at most `capacity` elements: `put` waits while it is
/// full, `take` while it is empty. The recorder's encoding thread hands encoded batches to its
/// committing thread through one, so encoding runs at most `capacity` batches ahead of the disk.
///
/// Every element put must be taken before the hand-off is released (libdispatch requires its
/// semaphores to be back at their initial values then); the recorder ends with an exit element.
final class BoundedHandoff<Element: Sendable>: Sendable {
    private let elements = Mutex<[Element]>([])
    private let free: DispatchSemaphore
    private let filled = DispatchSemaphore(value: 0)

    init(capacity: Int) {
        precondition(capacity > 0, "a hand-off needs room for one element")
        free = DispatchSemaphore(value: capacity)
    }

    /// Appends `element`, waiting for room.
    func put(_ element: Element) {
        free.wait()
        elements.withLock { $0.append(element) }
        filled.signal()
    }

    /// Removes the oldest element, waiting for one.
    func take() -> Element {
        filled.wait()
        let element = elements.withLock { $0.removeFirst() }
        free.signal()
        return element
    }
}
