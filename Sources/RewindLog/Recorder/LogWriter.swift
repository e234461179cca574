import Dispatch
import Foundation
import Rewind
import Synchronization

/// The recorder's two threads: one takes everything buffered and encodes it, the other commits
/// each encoded batch in one transaction, wakes those waiting for the commit and reports what
/// could not be written.
///
/// Encoding and committing overlap: while one batch is being written to SQLite, the next is
/// being encoded. Encoding happens outside the transaction with the symbols the file already
/// holds (``PayloadCodec/encodeWithStoredSymbols(_:)``); the rare value that needs a new
/// symbol (the first uses of a key) is encoded inside the transaction, where choosing a new id
/// is safe from other writers. Batches pass from one thread to the other in order, through a
/// hand-off of one batch, so nothing is reordered and encoding runs at most a batch ahead.
@usableFromInline
final class LogWriter<State: Codable & Sendable, Action: Codable & Sendable>: Sendable {
    private let log: EventLog
    private let buffer: RecordingBuffer<State, Action>
    private let configuration: RecorderConfiguration<Action>
    private let currentSession = Mutex<LogSession?>(nil)
    /// The file's identity when recording began, to notice it being deleted or replaced.
    private let fileIdentity: FileIdentity?
    /// The log's own codec instance: a codec with symbols keeps them per log file.
    private let codec: any PayloadCodec
    private let encoder: EventEncoder<Action>
    private let commits = BoundedHandoff<Commit>(capacity: 1)

    init(log: EventLog, buffer: RecordingBuffer<State, Action>, configuration: RecorderConfiguration<Action>) {
        self.log = log
        self.buffer = buffer
        self.configuration = configuration
        fileIdentity = FileIdentity(path: log.path)
        codec = log.codecs[configuration.codec.name] ?? configuration.codec
        encoder = EventEncoder(codec: codec, redaction: configuration.redaction, path: log.path)
    }

    var session: LogSession? {
        currentSession.withLock { $0 }
    }

    func start() {
        let encoding = Thread { [self] in runEncoding() }
        encoding.name = "RewindLog.encoder"
        let committing = Thread { [self] in runCommitting() }
        committing.name = "RewindLog.writer"
        committing.start()
        encoding.start()
    }

    /// Begins the session (on the binding thread: once per store, not on the dispatch path).
    @usableFromInline
    func beginSession(app: AppIdentity, initialState: State) {
        do {
            let session = try log.beginSession(
                app: app, codec: configuration.codec, initialState: initialState,
                info: configuration.sessionInfo, at: configuration.clock()
            )
            currentSession.withLock { $0 = session }
        } catch {
            // Every batch will then be reported as unrecorded with this error.
            buffer.contents.withLock { $0.permanentFailure = error }
            configuration.onFailure(RecorderFailure(error: error, unrecorded: []))
        }
    }

    private typealias Item = RecordingBuffer<State, Action>.Item

    private enum Job {
        case sleep(until: ContinuousClock.Instant?)
        case encode([Item], through: UInt64, roomWaiters: [DispatchSemaphore])
        case exit
    }

    /// A batch taken from the buffer, encoded as far as it can be outside the transaction.
    private struct PreparedBatch: Sendable {
        /// The items, as they were handed off (a part of one swap of the buffer).
        var items: ArraySlice<Item>
        /// One row per item, in order; `nil` where the item is encoded inside the transaction.
        var writes: [LogWrite?] = []
        /// The items encoded inside the transaction (indices of `items`), with their rows'
        /// positions in `writes`.
        var deferred: [(item: Int, position: Int)] = []
        /// Encoding failures, with the position of the item that failed.
        var failures: [(position: Int, failure: RecorderFailure<Action>)] = []
        /// The hand-off count the batch ends at.
        var through: UInt64

        /// Every event's action, to report when the batch cannot be written at all.
        var actions: [DispatchedAction<Action>] {
            items.compactMap { item in if case let .event(dispatched, _) = item { dispatched } else { nil } }
        }
    }

    private enum Commit: Sendable {
        case batch(PreparedBatch)
        case exit
    }

    // MARK: The encoding thread

    private func runEncoding() {
        var spare: [Item] = []
        spare.reserveCapacity(RecordingBuffer<State, Action>.itemCapacity(for: configuration))
        let maxDelay: Duration? = if case let .buffered(delay) = configuration.durability { delay } else { nil }

        while true {
            let job: Job = buffer.contents.withLock { contents in
                if contents.items.isEmpty {
                    if contents.isClosing { return .exit }
                    contents.writer = .idle
                    return .sleep(until: nil)
                }
                let urgent = maxDelay == nil || contents.isClosing || !contents.writeWaiters.isEmpty
                    || !contents.roomWaiters.isEmpty || contents.items.count >= configuration.batchSize
                if !urgent, let maxDelay {
                    let deadline = contents.lastCommit + maxDelay
                    if ContinuousClock.now < deadline {
                        contents.writer = .coalescing
                        return .sleep(until: deadline)
                    }
                }
                swap(&contents.items, &spare)
                contents.writer = .working
                // The buffer is empty again: whoever waits for room can go on.
                let roomWaiters = contents.roomWaiters
                contents.roomWaiters.removeAll()
                return .encode(spare, through: contents.handedOff, roomWaiters: roomWaiters)
            }
            switch job {
            case .exit:
                commits.put(.exit)
                return
            case let .sleep(deadline):
                if let deadline {
                    let nanoseconds = (deadline - ContinuousClock.now).components
                    let wait = Double(nanoseconds.seconds) + Double(nanoseconds.attoseconds) / 1e18
                    _ = buffer.wakeWriter.wait(timeout: .now() + max(0, wait))
                } else {
                    buffer.wakeWriter.wait()
                }
                buffer.contents.withLock { if $0.writer != .working { $0.writer = .working } }
            case let .encode(items, through, roomWaiters):
                for waiter in roomWaiters { waiter.signal() }
                // The items travel with their batches; the next swap needs an array with room
                // for a full buffer, so that the dispatch path never grows one.
                spare = []
                spare.reserveCapacity(RecordingBuffer<State, Action>.itemCapacity(for: configuration))
                // Committed `batchSize` items at a time, so the first commit starts as soon as
                // its part is encoded instead of after the whole buffer.
                var ticket = through - UInt64(items.count { $0.isEvent })
                var start = items.startIndex
                while start < items.endIndex {
                    let part = items[start..<min(start + max(1, configuration.batchSize), items.endIndex)]
                    ticket += UInt64(part.count { $0.isEvent })
                    // Waits while the committing thread still has a batch queued.
                    commits.put(.batch(prepare(part, through: ticket)))
                    start = part.endIndex
                }
            }
        }
    }

    /// Encodes what can be encoded with the symbols the file holds.
    private func prepare(_ items: ArraySlice<Item>, through: UInt64) -> PreparedBatch {
        var batch = PreparedBatch(items: items, through: through)
        batch.writes.reserveCapacity(items.count)
        // Indices rather than `enumerated()`: this code runs unspecialised for the app's types,
        // where each tuple of the enumeration costs a generic metadata look-up.
        for index in items.indices {
            let position = index - items.startIndex
            switch items[index] {
            case let .event(dispatched, time):
                guard let (event, failure) = encoder.encodeWithStoredSymbols(dispatched.action, source: dispatched.source, time: time) else {
                    batch.writes.append(nil)
                    batch.deferred.append((index, position))
                    continue
                }
                if let failure { batch.failures.append((position, RecorderFailure(error: failure, unrecorded: [dispatched]))) }
                batch.writes.append(.event(event))
            case let .snapshot(state, time):
                do {
                    let data = try codec.encodeWithStoredSymbols(state)
                    batch.writes.append(data.map { .snapshot(time: time, state: $0) })
                    if data == nil { batch.deferred.append((index, position)) }
                } catch {
                    batch.writes.append(nil)
                    batch.failures.append((position, snapshotFailure(error)))
                }
            }
        }
        return batch
    }

    private func snapshotFailure(_ error: any Error) -> RecorderFailure<Action> {
        RecorderFailure(error: .encodingFailed(path: log.path, seq: nil, actionCase: "state snapshot", reason: "\(error)"), unrecorded: [])
    }

    // MARK: The committing thread

    private func runCommitting() {
        var commitsSinceRetention = 0
        while true {
            guard case let .batch(batch) = commits.take() else {
                buffer.writerExited.signal()
                return
            }
            let failures = commit(batch)
            var wake: [DispatchSemaphore] = []
            buffer.contents.withLock { contents in
                contents.written = batch.through
                contents.lastCommit = .now
                if contents.unthrownFailure == nil { contents.unthrownFailure = failures.first?.error }
                contents.writeWaiters.removeAll { waiter in
                    guard waiter.ticket <= batch.through else { return false }
                    wake.append(waiter.semaphore)
                    return true
                }
            }
            // Report before waking anyone: once `flush()` returns, the handler has been told.
            for failure in failures { configuration.onFailure(failure) }
            for semaphore in wake { semaphore.signal() }
            commitsSinceRetention += 1
            if let retention = configuration.retention, commitsSinceRetention >= retention.checkEvery {
                commitsSinceRetention = 0
                do {
                    try log.trim(to: retention, now: configuration.clock())
                } catch {
                    configuration.onFailure(RecorderFailure(error: error, unrecorded: []))
                }
            }
        }
    }

    /// Encodes the rest of one batch and commits it; returns what to report.
    private func commit(_ batch: PreparedBatch) -> [RecorderFailure<Action>] {
        if let failure = buffer.contents.withLock({ $0.permanentFailure }) {
            return [RecorderFailure(error: failure, unrecorded: batch.actions)]
        }
        guard let session else {
            return [RecorderFailure(error: .closed(path: log.path), unrecorded: batch.actions)]
        }
        if let fileIdentity, FileIdentity(path: log.path) != fileIdentity {
            let error = EventLogError.fileVanished(path: log.path)
            buffer.contents.withLock { $0.permanentFailure = error }
            return [RecorderFailure(error: error, unrecorded: batch.actions)]
        }

        var failures = batch.failures
        do {
            try log.writeEncoding { db in
                failures = batch.failures
                var writes = batch.writes
                // New symbols get their ids here, under the write lock.
                for (index, position) in batch.deferred {
                    switch batch.items[index] {
                    case let .event(dispatched, time):
                        let (event, failure) = encoder.encode(dispatched.action, source: dispatched.source, time: time)
                        if let failure { failures.append((position, RecorderFailure(error: failure, unrecorded: [dispatched]))) }
                        writes[position] = .event(event)
                    case let .snapshot(state, time):
                        do {
                            writes[position] = .snapshot(time: time, state: try codec.encode(state))
                        } catch {
                            failures.append((position, snapshotFailure(error)))
                        }
                    }
                }
                _ = try log.insert(writes.lazy.compactMap { $0 }, session: session.id, isText: codec.isText, in: db)
            }
        } catch {
            // Source ids interned inside the rolled-back transaction are gone with it.
            log.sources.forget()
            return [RecorderFailure(error: error, unrecorded: batch.actions)]
        }
        // In the order of the items, as they were dispatched.
        return failures.sorted { $0.position < $1.position }.map(\.failure)
    }
}

/// A file's device and inode: changes when the file is deleted or replaced.
struct FileIdentity: Equatable {
    var device: UInt64
    var inode: UInt64

    init?(path: String) {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let device = (attributes[.systemNumber] as? NSNumber)?.uint64Value,
              let inode = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value
        else { return nil }
        self.device = device
        self.inode = inode
    }
}
