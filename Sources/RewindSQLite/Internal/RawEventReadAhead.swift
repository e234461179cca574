import Dispatch
import Foundation
import RewindLogCore
import Synchronization

/// A raw walk's read-ahead: SQLite steps over the log's rows on a thread of its own and copies
/// them into batches, while the walking thread decodes and folds the batch before. Replay's
/// time was stepping and decoding one after the other on one core (SQLite's stepping about as
/// long as decoding, each about two fifths of a binary action's read + decode); a second core
/// now steps while the first decodes.
///
/// Bounded: three batches of at most ``Batch/maximumEvents`` events each, a batch closing once
/// its payloads reach ``Batch/maximumBytes`` (so it holds at most that plus one payload); the
/// reading thread waits for a batch to come back before filling another. The walk
/// that stops early (its body returns `.stop` or throws) tells the reader to stop and waits for
/// it: no read of the log outlives the call.
final class RawEventReadAhead: Sendable {
    /// Events read and copied: each event's fields in arrays, every payload's bytes in one
    /// buffer. Owned by one thread at a time, handed over through the read-ahead's lock.
    ///
    /// Its stored properties opt out of Swift's run-time exclusivity checks: a class's are
    /// checked at every access (a thread-local access set), and `append`, once a row, made about
    /// ten such accesses — in a profile of a binary read + decode, more than half of the reading
    /// thread's time outside SQLite. No access here overlaps another: a batch is used by one thread at a
    /// time, and none of its methods calls out while it holds a property.
    final class Batch: @unchecked Sendable {
        static let maximumEvents = 1_024
        static let maximumBytes = 256 << 10

        @exclusivity(unchecked) private(set) var seqs: [Int64] = []
        @exclusivity(unchecked) private(set) var actionIDs: [Int] = []
        /// Where each payload is in `bytes`; a count of -1 for an event without one.
        @exclusivity(unchecked) private(set) var places: [(offset: Int, count: Int)] = []
        @exclusivity(unchecked) private(set) var redactions: [String?] = []
        /// The case names of every event in the batch: a batch ends where they change (a page
        /// that loaded new names).
        @exclusivity(unchecked) private(set) var names: [String?] = []
        @exclusivity(unchecked) private var bytes = UnsafeMutableRawPointer.allocate(byteCount: 4_096, alignment: 16)
        @exclusivity(unchecked) private var capacity = 4_096
        @exclusivity(unchecked) private var used = 0

        deinit { bytes.deallocate() }

        var count: Int { seqs.count }
        var isFull: Bool { seqs.count >= Self.maximumEvents || used >= Self.maximumBytes }

        /// Whether `event` can join this batch: it has room, and the event has the same names.
        func admits(_ event: RawEvent) -> Bool {
            seqs.isEmpty || (!isFull && event.names.count == names.count)
        }

        func append(_ event: RawEvent) {
            if seqs.isEmpty { names = event.names }
            seqs.append(event.seq)
            actionIDs.append(event.actionID)
            redactions.append(event.redaction)
            guard let payload = event.payload else {
                places.append((used, -1))
                return
            }
            reserve(payload.count)
            if payload.count > 0, let base = payload.baseAddress {
                (bytes + used).copyMemory(from: base, byteCount: payload.count)
            }
            places.append((used, payload.count))
            used += payload.count
        }

        /// Calls `body` with each event, its payload borrowed from the batch for the call.
        func forEach(_ body: (RawEvent) throws(EventLogError) -> FoldStep) throws(EventLogError) -> FoldStep {
            var event = RawEvent(seq: 0, actionID: 0, names: names, payload: nil, redaction: nil)
            for index in seqs.indices {
                let place = places[index]
                event.seq = seqs[index]
                event.actionID = actionIDs[index]
                event.redaction = redactions[index]
                event.payload = place.count < 0 ? nil : UnsafeRawBufferPointer(start: bytes + place.offset, count: place.count)
                if try body(event) == .stop { return .stop }
            }
            return .continue
        }

        /// Empties the batch, keeping its room.
        func reset() {
            seqs.removeAll(keepingCapacity: true)
            actionIDs.removeAll(keepingCapacity: true)
            places.removeAll(keepingCapacity: true)
            redactions.removeAll(keepingCapacity: true)
            names = []
            used = 0
        }

        private func reserve(_ count: Int) {
            guard count > capacity - used else { return }
            var grown = capacity
            while grown - used < count { grown *= 2 }
            let larger = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 16)
            larger.copyMemory(from: bytes, byteCount: used)
            bytes.deallocate()
            (bytes, capacity) = (larger, grown)
        }
    }

    /// How many batches a walk has: one walked while the others fill.
    static let batches = 3

    private struct State {
        var free: [Batch] = (0..<RawEventReadAhead.batches).map { _ in Batch() }
        var filled: [Batch] = []
        /// How the reading ended: `nil` while it reads.
        var end: Result<Void, EventLogError>?
        var stopped = false
    }

    private let state = Mutex(State())
    /// Counts batches free to fill (three to begin with, signalled in `init`), and wakes a
    /// reader told to stop. Every semaphore starts at 0: libdispatch traps when one is freed
    /// with a value below the one it was made with, as this one may be when a walk stops.
    private let freeBatches = DispatchSemaphore(value: 0)
    /// Counts filled batches, and the reading's end.
    private let filledBatches = DispatchSemaphore(value: 0)
    /// Signalled once the reading thread is done with the log.
    private let finished = DispatchSemaphore(value: 0)

    private init() {
        for _ in 0..<Self.batches { freeBatches.signal() }
    }

    /// Reads with `read` on a thread of its own, `read` calling its argument with each event in
    /// order until it returns `.stop`; calls `body` on this thread with each event, in order.
    ///
    /// - Returns: Whether `body` stopped the walk.
    static func walk(
        reading read: @escaping @Sendable (_ each: (RawEvent) -> FoldStep) throws(EventLogError) -> Void,
        _ body: (RawEvent) throws(EventLogError) -> FoldStep
    ) throws(EventLogError) -> Bool {
        let readAhead = RawEventReadAhead()
        DispatchQueue.global().async { readAhead.read(with: read) }
        defer {
            readAhead.stop()
            readAhead.finished.wait()
        }
        while let batch = readAhead.next() {
            let step = try batch.forEach(body)
            readAhead.giveBack(batch)
            if step == .stop { return true }
        }
        // Every batch walked: the reading has ended, and an error it ended with comes after the
        // events read before it, as on one thread.
        try readAhead.state.withLock { $0.end }?.get()
        return false
    }

    // MARK: The reading thread

    private func read(with read: (_ each: (RawEvent) -> FoldStep) throws(EventLogError) -> Void) {
        var batch: Batch? = nil
        let ended: Result<Void, EventLogError>
        do {
            try read { event in
                if let current = batch, !current.admits(event) {
                    send(current)
                    batch = nil
                }
                if batch == nil {
                    guard let free = takeFree() else { return .stop }
                    batch = free
                }
                batch!.append(event)
                return .continue
            }
            ended = .success(())
        } catch {
            ended = .failure(error)
        }
        // The events read before an error too: the walk gives them, then the error.
        if let batch, batch.count > 0 { send(batch) }
        state.withLock { $0.end = ended }
        filledBatches.signal()
        finished.signal()
    }

    /// A free batch, waiting for one; `nil` once the walk has stopped.
    private func takeFree() -> Batch? {
        freeBatches.wait()
        return state.withLock { state in
            state.stopped ? nil : state.free.popLast()
        }
    }

    private func send(_ batch: Batch) {
        state.withLock { $0.filled.append(batch) }
        filledBatches.signal()
    }

    // MARK: The walking thread

    /// The next filled batch, waiting for one; `nil` once the reading has ended and every batch
    /// has been walked.
    private func next() -> Batch? {
        filledBatches.wait()
        return state.withLock { state in
            state.filled.isEmpty ? nil : state.filled.removeFirst()
        }
    }

    private func giveBack(_ batch: Batch) {
        batch.reset()
        state.withLock { $0.free.append(batch) }
        freeBatches.signal()
    }

    /// Tells the reading thread to stop at its next batch, waking it if it waits for one.
    private func stop() {
        state.withLock { $0.stopped = true }
        freeBatches.signal()
    }
}
