import RewindLog
import Synchronization

/// A recorder's batch on its way into the store: the parts of its rows as the writer thread
/// encodes them (``LogWrite/Encoding``), taken by the task that sends them, which copies one
/// part while the writer encodes the next (``PostgresRecordingLog``).
///
/// The writer never waits here: a part is kept until the task takes it. The task waits for
/// the next part. A copy cut off by a lost connection may leave its task suspended for good
/// (see `PostgresLog.copy(writing:letGo:)`); ``release()`` lets go of the parts it would keep.
final class BatchRows: Sendable {
    private struct State {
        /// Parts sent and not taken yet.
        var waiting: [[LogWrite]] = []
        /// Every part taken, in order: the batch so far, if it has to be written again whole.
        var taken: [[LogWrite]] = []
        /// How the writer ended: `nil` while it encodes.
        var end: Result<Void, any Error>?
        /// The task waiting for the next part.
        var reader: CheckedContinuation<[LogWrite]?, any Error>?
        var released = false
    }

    private let state: Mutex<State>

    /// A batch whose parts the writer thread sends (``send(_:)``, then ``finish(throwing:)``).
    init() {
        state = Mutex(State())
    }

    /// A batch already whole.
    init(whole parts: [[LogWrite]]) {
        state = Mutex(State(waiting: parts, end: .success(())))
    }

    /// Hands over the next part (from the writer thread).
    func send(_ part: [LogWrite]) {
        let reader = state.withLock { state -> CheckedContinuation<[LogWrite]?, any Error>? in
            guard !state.released else { return nil }
            if let reader = state.reader {
                state.reader = nil
                state.taken.append(part)
                return reader
            }
            state.waiting.append(part)
            return nil
        }
        reader?.resume(returning: part)
    }

    /// Says that no part follows: the batch is whole, or, with `error`, its encoding failed.
    func finish(throwing error: (any Error)? = nil) {
        let end: Result<Void, any Error> = error.map { .failure($0) } ?? .success(())
        let reader = state.withLock { state -> CheckedContinuation<[LogWrite]?, any Error>? in
            state.end = state.end ?? end
            defer { state.reader = nil }
            return state.reader
        }
        switch end {
        case .success: reader?.resume(returning: nil)
        case let .failure(error): reader?.resume(throwing: error)
        }
    }

    /// The next part, waiting for the writer to send it; `nil` once the batch is whole (and
    /// every time after). Throws the writer's encoding failure, or `CancellationError` once
    /// released. One task at a time.
    func next() async throws -> [LogWrite]? {
        if let ready = state.withLock({ Self.take(&$0) }) { return try ready.get() }
        return try await withCheckedThrowingContinuation { reader in
            let now = state.withLock { state in
                // Sent or ended between the look above and now; else the writer resumes it.
                let ready = Self.take(&state)
                if ready == nil { state.reader = reader }
                return ready
            }
            if let now { reader.resume(with: now) }
        }
    }

    /// The next part or the end, if either is there yet; after ``release()``, a cancellation.
    private static func take(_ state: inout State) -> Result<[LogWrite]?, any Error>? {
        if state.released { return .failure(CancellationError()) }
        if !state.waiting.isEmpty {
            let part = state.waiting.removeFirst()
            state.taken.append(part)
            return .success(part)
        }
        return state.end.map { end in end.map { nil } }
    }

    /// Every part taken so far, in order.
    var taken: [[LogWrite]] {
        state.withLock { $0.taken }
    }

    /// Lets go of every part held, and of those sent later: the batch will not be written
    /// from here.
    func release() {
        let reader = state.withLock { state in
            state.released = true
            state.waiting = []
            state.taken = []
            defer { state.reader = nil }
            return state.reader
        }
        reader?.resume(throwing: CancellationError())
    }
}
