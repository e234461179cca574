import Dispatch
import Foundation
import Rewind
import Synchronization

/// The hand-off between the dispatch path and the writer thread: a bounded FIFO of actions (and
/// snapshot requests) plus the bookkeeping for waking the writer and the threads that wait on it.
///
/// The dispatch path appends under a `Mutex` and signals a semaphore only when the writer is
/// asleep; it allocates nothing unless it has to wait (buffer full, or synchronous durability).
final class RecordingBuffer<State: Sendable, Action: Sendable>: Sendable {
    enum Item: Sendable {
        case event(DispatchedAction<Action>, time: Double)
        case snapshot(State, time: Double)
    }

    enum WriterState: Sendable {
        case working, idle, coalescing
    }

    struct Contents: Sendable {
        var items: [Item] = []
        /// Events handed off so far; an event's ticket is the count after it.
        var handedOff: UInt64 = 0
        /// Events whose batch has been written (committed, or reported as failed).
        var written: UInt64 = 0
        var sinceSnapshot = 0
        var writer = WriterState.working
        var lastCommit: ContinuousClock.Instant = .now
        /// Threads waiting for `written` to reach their ticket (flush, synchronous dispatch).
        var writeWaiters: [(ticket: UInt64, semaphore: DispatchSemaphore)] = []
        /// Threads waiting for room in a full buffer.
        var roomWaiters: [DispatchSemaphore] = []
        /// The first failure not yet thrown by `flush()`.
        var unthrownFailure: EventLogError?
        /// Set by `close()`: accept nothing more, write what is left, stop.
        var isClosing = false
        /// Set when the writer can no longer write at all (the file vanished).
        var permanentFailure: EventLogError?
    }

    let contents = Mutex(Contents())
    /// Wakes the writer thread; signalled only by whoever moves `writer` out of idle/coalescing.
    let wakeWriter = DispatchSemaphore(value: 0)
    /// Signalled once when the writer thread exits.
    let writerExited = DispatchSemaphore(value: 0)
}
