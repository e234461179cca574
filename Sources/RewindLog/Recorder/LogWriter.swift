import Dispatch
import Foundation
import Rewind
import Synchronization

/// The recorder's writer thread: takes everything buffered, encodes it and commits it, at most
/// ``RecorderConfiguration/batchSize`` events per transaction; wakes those waiting for each
/// commit; reports what could not be written.
@usableFromInline
final class LogWriter<State: Codable & Sendable, Action: Codable & Sendable>: Sendable {
    private let log: EventLog
    private let buffer: RecordingBuffer<State, Action>
    private let configuration: RecorderConfiguration<Action>
    private let currentSession = Mutex<LogSession?>(nil)
    /// The file's identity when recording began, to notice it being deleted or replaced.
    private let fileIdentity: FileIdentity?
    /// Where `onFailure` runs: never on the writer thread, so a handler may call `flush()` or
    /// `close()`, or dispatch into a full buffer, without waiting on the thread it blocks.
    private let reports = DispatchQueue(label: "RewindLog.failures")

    init(log: EventLog, buffer: RecordingBuffer<State, Action>, configuration: RecorderConfiguration<Action>) {
        self.log = log
        self.buffer = buffer
        self.configuration = configuration
        fileIdentity = FileIdentity(path: log.path)
    }

    var session: LogSession? {
        currentSession.withLock { $0 }
    }

    /// Hands `failure` to `onFailure`, in order, on the reports queue.
    func report(_ failure: RecorderFailure<Action>) {
        let onFailure = configuration.onFailure
        reports.async { onFailure(failure) }
    }

    /// Waits until every failure reported so far has been handled — unless called from a
    /// handler itself, which would wait for itself.
    func drainReports() {
        guard DispatchQueue.getSpecific(key: reportsKey) == nil else { return }
        reports.sync {}
    }

    func start() {
        reports.setSpecific(key: reportsKey, value: true)
        let thread = Thread { [self] in run() }
        thread.name = "RewindLog.writer"
        thread.start()
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
            report(RecorderFailure(error: error, unrecorded: []))
        }
    }

    private enum Job {
        case sleep(until: ContinuousClock.Instant?)
        case write([RecordingBuffer<State, Action>.Item], through: UInt64, roomWaiters: [DispatchSemaphore])
        case exit
    }

    private func run() {
        var spare: [RecordingBuffer<State, Action>.Item] = []
        spare.reserveCapacity(RecordingBuffer<State, Action>.itemCapacity(for: configuration))
        let maxDelay: Duration? = if case let .buffered(delay) = configuration.durability { delay } else { nil }
        var commitsSinceRetention = 0
        // The ticket of the last event taken from the buffer: every event handed off is in
        // exactly one swap, so a swap's events follow the previous swap's.
        var taken: UInt64 = 0

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
                return .write(spare, through: contents.handedOff, roomWaiters: roomWaiters)
            }
            switch job {
            case .exit:
                buffer.writerExited.signal()
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
            case let .write(items, through, roomWaiters):
                for waiter in roomWaiters { waiter.signal() }
                // At most `batchSize` items per transaction, each part ending at the ticket of
                // its last event.
                var start = items.startIndex
                while start < items.endIndex {
                    let part = items[start..<min(start + max(1, configuration.batchSize), items.endIndex)]
                    taken = commit(part, after: taken)
                    start = part.endIndex
                    commitsSinceRetention += 1
                    if let retention = configuration.retention, commitsSinceRetention >= retention.checkEvery {
                        commitsSinceRetention = 0
                        do {
                            try log.trim(to: retention, now: configuration.clock())
                        } catch {
                            report(RecorderFailure(error: error, unrecorded: []))
                        }
                    }
                }
                assert(taken == through, "the parts' events are the swap's events")
                taken = through
                spare = items
                spare.removeAll(keepingCapacity: true)
            }
        }
    }

    /// Writes one part of the buffer, whose events follow ticket `previous`, then wakes whoever
    /// waited for them and reports failures; returns the ticket of its last event.
    private func commit(_ items: ArraySlice<RecordingBuffer<State, Action>.Item>, after previous: UInt64) -> UInt64 {
        let (failures, events) = write(items)
        let through = previous + UInt64(events)
        var wake: [DispatchSemaphore] = []
        buffer.contents.withLock { contents in
            contents.written = through
            contents.lastCommit = .now
            if contents.unthrownFailure == nil { contents.unthrownFailure = failures.first?.error }
            contents.writeWaiters.removeAll { waiter in
                guard waiter.ticket <= through else { return false }
                wake.append(waiter.semaphore)
                return true
            }
        }
        // Report before waking anyone: `flush()` drains the reports after its wait, so once it
        // returns the handler has been told.
        for failure in failures { report(failure) }
        for semaphore in wake { semaphore.signal() }
        return through
    }

    /// Encodes and commits one batch; returns what to report and how many events it held.
    private func write(_ items: ArraySlice<RecordingBuffer<State, Action>.Item>) -> (failures: [RecorderFailure<Action>], events: Int) {
        // Only for reporting a batch that cannot be written: built on demand, since this code
        // runs unspecialised for the app's types, where copying every action of every batch
        // goes through value witnesses and shows in the writer's profile.
        var actions: [DispatchedAction<Action>] {
            items.compactMap { item in if case let .event(dispatched, _) = item { dispatched } else { nil } }
        }
        func unwritten(_ error: EventLogError) -> ([RecorderFailure<Action>], Int) {
            let actions = actions
            return ([RecorderFailure(error: error, unrecorded: actions)], actions.count)
        }
        if let failure = buffer.contents.withLock({ $0.permanentFailure }) {
            return unwritten(failure)
        }
        guard let session else {
            return unwritten(.closed(path: log.path))
        }
        if let fileIdentity, FileIdentity(path: log.path) != fileIdentity {
            let error = EventLogError.fileVanished(path: log.path)
            buffer.contents.withLock { $0.permanentFailure = error }
            return unwritten(error)
        }

        // The log's own codec instance: a codec with symbols keeps them per log file.
        let codec = log.codecs[configuration.codec.name] ?? configuration.codec
        let encoder = EventEncoder(codec: codec, redaction: configuration.redaction, path: log.path)
        var failures: [RecorderFailure<Action>] = []
        var events = 0
        do {
            // Encoding happens inside the transaction, so new symbols get ids under the write lock.
            try log.writeEncoding { db in
                failures.removeAll()
                events = 0
                var writes: [LogWrite] = []
                writes.reserveCapacity(items.count)
                for item in items {
                    switch item {
                    case let .event(dispatched, time):
                        events += 1
                        let (event, failure) = encoder.encode(dispatched.action, source: dispatched.source, time: time)
                        if let failure { failures.append(RecorderFailure(error: failure, unrecorded: [dispatched])) }
                        writes.append(.event(event))
                    case let .snapshot(state, time):
                        do {
                            writes.append(.snapshot(time: time, state: try codec.encode(state)))
                        } catch {
                            failures.append(RecorderFailure(error: .encodingFailed(path: log.path, seq: nil, actionCase: "state snapshot", reason: "\(error)"), unrecorded: []))
                        }
                    }
                }
                _ = try log.insert(writes, session: session.id, isText: codec.isText, in: db)
            }
        } catch {
            return unwritten(error)
        }
        return (failures, events)
    }
}

/// Marks the queues that run `onFailure` handlers (one key for every writer's queue).
private let reportsKey = DispatchSpecificKey<Bool>()
