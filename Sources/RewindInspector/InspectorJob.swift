import Foundation
import Synchronization

/// One API call while the inspector answers it: what the ``InspectorAPI`` reports its progress
/// to, and asks whether anyone still waits for the answer.
///
/// Every call runs as a job. One that answers within ``Inspector/Limits/answerWithin`` is
/// answered on its own request; a longer one is answered `202 Accepted` with the job's id and
/// progress, and the page asks `GET /api/job?id=…` until the answer is there. A job nobody
/// asks about for ``Inspector/Limits/abandonAfter`` is cancelled: ``isCancelled`` turns true,
/// and long work checks it where it reports progress. A finished job's answer is kept for
/// ``Inspector/Limits/keepAnswersFor`` after it was last asked about.
public final class InspectorJob: Sendable {
    /// The call this job answers.
    public let call: InspectorCall
    /// The job's id: 32 hex digits, random.
    let id: String
    /// Whether the call is one of the API's long ones (``InspectorAPI/isLong(_:)``): those run
    /// at most ``Inspector/Limits/running`` at a time.
    let isLong: Bool
    private let abandonAfter: Duration
    private let keepAnswersFor: Duration
    private let state: Mutex<State>

    /// How far a job is, as the page shows it: `replaying: seq 40,000 of 1,000,000`.
    public struct Progress: Sendable, Equatable {
        /// What the work is doing (`replaying`, `reading`).
        public var what: String
        /// How far it is, in the unit of ``total``.
        public var done: Int64
        /// Where it ends, when known.
        public var total: Int64?
    }

    enum Phase {
        case waiting
        case running
        case finished(InspectorResponse)
    }

    private struct State {
        var phase = Phase.waiting
        var progress: Progress?
        var cancelled = false
        /// When the job was last asked about (made, joined or polled).
        var askedAt = ContinuousClock.now
        /// Whether its id was handed out (a `202`): its answer is then kept until fetched.
        var handedOut = false
        var waiters: [UUID: CheckedContinuation<InspectorResponse?, Never>] = [:]
        let started = ContinuousClock.now

        /// Whether nobody asked for `limit`: a request waiting for the answer still asks.
        func isAbandoned(after limit: Duration) -> Bool {
            waiters.isEmpty && ContinuousClock.now - askedAt > limit
        }

        var isFinished: Bool {
            if case .finished = phase { true } else { false }
        }
    }

    init(call: InspectorCall, isLong: Bool, limits: Inspector.Limits) {
        self.call = call
        self.isLong = isLong
        self.abandonAfter = limits.abandonAfter
        self.keepAnswersFor = max(limits.abandonAfter, limits.keepAnswersFor)
        var bytes = SystemRandomNumberGenerator()
        id = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &bytes)) }.joined()
        state = Mutex(State())
    }

    /// A job answered outside the inspector's server — an agent's call over `rewind mcp` —
    /// which nobody polls: it is never abandoned, and stops only when ``cancel()`` is called.
    public convenience init(answering call: InspectorCall) {
        var limits = Inspector.Limits()
        limits.abandonAfter = .seconds(Int64.max / 4)
        self.init(call: call, isLong: false, limits: limits)
    }

    /// Whether the answer is no longer wanted: nobody asked about the job for
    /// ``Inspector/Limits/abandonAfter``. Long work checks it where it reports progress and
    /// stops (its answer is thrown away).
    public var isCancelled: Bool {
        state.withLock { $0.cancelled || $0.isAbandoned(after: abandonAfter) }
    }

    /// The latest report of how far the work is, if any.
    public var progress: Progress? { state.withLock { $0.progress } }

    /// Reports how far the work is; the page shows the latest report.
    public func report(_ what: String, done: Int64, of total: Int64? = nil) {
        state.withLock { $0.progress = Progress(what: what, done: done, total: total) }
    }

    // MARK: - For the job table

    var phase: Phase { state.withLock { $0.phase } }

    /// Whether the table may forget the job: its work nobody asked about for `abandonAfter`,
    /// or its answer for `keepAnswersFor`.
    var isAbandoned: Bool {
        state.withLock { $0.isAbandoned(after: $0.isFinished ? keepAnswersFor : abandonAfter) }
    }

    /// When the job was last asked about.
    var askedAt: ContinuousClock.Instant { state.withLock { $0.askedAt } }

    /// Notes that someone asked about the job (it is not abandoned).
    func asked(handingOut: Bool = false) {
        state.withLock {
            $0.askedAt = .now
            if handingOut { $0.handedOut = true }
        }
    }

    var wasHandedOut: Bool { state.withLock { $0.handedOut } }

    func markRunning() { state.withLock { $0.phase = .running } }

    /// Cancels the job: ``isCancelled`` turns true, and its waiters are told there will be no
    /// answer.
    public func cancel() {
        let waiters = state.withLock { state in
            state.cancelled = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: nil) }
    }

    /// Ends the job with `response`, waking whoever waits for it.
    func finish(_ response: InspectorResponse) {
        let waiters = state.withLock { state in
            state.phase = .finished(response)
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: response) }
    }

    /// The answer, once the job has it; `nil` when it still runs after `limit`.
    func answer(within limit: Duration) async -> InspectorResponse? {
        let key = UUID()
        return await withCheckedContinuation { continuation in
            let now: InspectorResponse?? = state.withLock { state in
                if case let .finished(response) = state.phase { return .some(response) }
                if state.cancelled { return .some(nil) }
                state.waiters[key] = continuation
                return nil
            }
            if let now { return continuation.resume(returning: now) }
            Task { [self] in
                try? await Task.sleep(for: limit)
                state.withLock { state in
                    // Its wait over, the request was asking until now.
                    state.askedAt = .now
                    return state.waiters.removeValue(forKey: key)
                }?.resume(returning: nil)
            }
        }
    }

    /// The `202 Accepted` answer while the job waits or runs: its id and how far it is.
    func pending() -> InspectorResponse {
        let (phase, progress, started) = state.withLock { ($0.phase, $0.progress, $0.started) }
        var object: [String: Any] = [
            "job": id,
            "call": call.endpoint,
            "state": { if case .waiting = phase { "waiting" } else { "running" } }(),
            "seconds": (ContinuousClock.now - started).inSeconds,
        ]
        if let progress {
            var reported: [String: Any] = ["what": progress.what, "done": progress.done]
            if let total = progress.total { reported["total"] = total }
            object["progress"] = reported
        }
        let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        var response = InspectorResponse.json(body, status: 202)
        response.headers["retry-after"] = "1"
        return response
    }
}

extension Duration {
    /// The duration in seconds, fractions included.
    var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
