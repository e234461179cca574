public import Foundation
#if canImport(FoundationNetworking)
// On Linux URLSession lives here, over libcurl: only apps that upload link it (this module).
import FoundationNetworking
#endif
public import RewindLogCore
import Synchronization

/// Sends an outbox's reports to the team's collector (`rewind collect`), and deletes each once
/// the collector has stored it.
///
/// ```swift
/// let uploader = ReportUploader(
///     outbox: ReportOutbox(besideLog: logPath),
///     endpoint: URL(string: "https://reports.example.com")!,
///     token: "rwi_…"  // an ingest token: it can only upload this app's reports
/// )
/// Task.detached(priority: .background) { await uploader.run() }
/// ```
///
/// - **Consent.** It sends `ReportOutbox.reports()` only: a report held for the user's
///   answer (`ReportConsent.askFirst`) waits until the app grants it.
/// - **Exactly once.** Each report goes with an idempotency key, its SHA-256 (`ReportDigest`):
///   a retry after a lost response — in this launch or after a relaunch — is stored once.
/// - **Backoff.** A failure that may pass (no network, a 5xx, 429 or 507) waits before the next
///   try: exponential, jittered (a random half to all of the bound, so a fleet that failed
///   together does not retry together), from ``Configuration/initialBackoff`` up to
///   ``Configuration/maxBackoff``, or the collector's `Retry-After` when longer. The wait is kept
///   in the outbox folder, so a relaunch does not hammer a collector that asked for quiet.
/// - **The kill switch.** A 410 from the collector (the team stopped uploads) stops uploading
///   for ``Configuration/stopDuration``; the reports stay in the outbox, within its bounds.
/// - **Budget.** At most ``Configuration/dailyByteBudget`` bytes a day (UTC); the rest wait.
/// - **Refused for good.** A report the collector will never take (400, 403, 409, 413: not a
///   report, another app's, a key reused, too large) is deleted and counted
///   (``Result/refused``, ``refusedCount``): never retried forever, never silently.
/// - **Networks** (Apple platforms only): no cellular or other expensive network, and nothing
///   in Low Data Mode, unless ``Configuration/allowsExpensiveNetwork`` and
///   ``Configuration/allowsConstrainedNetwork`` say so. On Linux there is no such preference.
///
/// Call ``send(now:)`` for one pass, or ``run()`` to keep sending until cancelled. One uploader
/// per outbox: two at once would send the same report twice (stored once all the same).
public final class ReportUploader: Sendable {
    /// How the uploader sends.
    public struct Configuration: Sendable {
        /// The most bytes sent a day (UTC days): 5 MiB.
        public var dailyByteBudget = 5 << 20
        /// The first wait after a failure that may pass: 30 s.
        public var initialBackoff: TimeInterval = 30
        /// The longest wait between tries: 6 hours.
        public var maxBackoff: TimeInterval = 6 * 3600
        /// How long a 410 (uploads stopped by the team) stops uploading: 1 day.
        public var stopDuration: TimeInterval = 24 * 3600
        /// How long one upload may take: 60 s.
        public var requestTimeout: TimeInterval = 60
        /// How often ``run()`` looks for new reports when it has nothing to wait for: 15 minutes.
        public var pollInterval: TimeInterval = 15 * 60
        /// Whether to send over cellular and other expensive networks (Apple platforms only).
        public var allowsExpensiveNetwork = false
        /// Whether to send in Low Data Mode (Apple platforms only).
        public var allowsConstrainedNetwork = false

        public init() {}
    }

    /// What one pass did.
    public struct Result: Sendable, Hashable {
        /// Reports the collector stored (or had stored), now deleted from the outbox.
        public var delivered = 0
        /// Reports the collector refused for good, deleted, with its reason.
        public var refused: [String] = []
        /// Reports still in the outbox, ready to send.
        public var remaining = 0
        /// When the next try may be made, if a failure or the budget deferred it.
        public var nextAttempt: Date?
        /// Whether the collector stopped uploads (410).
        public var stopped = false
        /// The last failure that may pass, if any (for logs).
        public var lastFailure: String?
    }

    public let outbox: ReportOutbox
    public let endpoint: URL
    public let configuration: Configuration
    private let token: String
    private let session: URLSession
    private let state: Mutex<Void> = Mutex(())

    /// - Parameters:
    ///   - outbox: The recorder's outbox (`ReportOutbox(besideLog:)`).
    ///   - endpoint: The collector's base URL (HTTPS in production; reports go to `/v1/reports`).
    ///   - token: The app's ingest token.
    ///   - configuration: Budget, backoff, networks.
    public init(outbox: ReportOutbox, endpoint: URL, token: String, configuration: Configuration = Configuration()) {
        self.outbox = outbox
        self.endpoint = endpoint
        self.token = token
        self.configuration = configuration
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.timeoutIntervalForRequest = configuration.requestTimeout
        sessionConfiguration.timeoutIntervalForResource = configuration.requestTimeout
        sessionConfiguration.httpCookieStorage = nil
        sessionConfiguration.urlCache = nil
        #if canImport(Darwin)
        sessionConfiguration.allowsExpensiveNetworkAccess = configuration.allowsExpensiveNetwork
        sessionConfiguration.allowsConstrainedNetworkAccess = configuration.allowsConstrainedNetwork
        sessionConfiguration.waitsForConnectivity = false
        #endif
        session = URLSession(configuration: sessionConfiguration)
    }

    /// This install's id, made once and kept in the outbox folder: what the collector's
    /// per-install limit and "erase this install's reports" go by. Random, not the user's.
    public var installID: String {
        state.withLock { _ in loadState().install }
    }

    /// How many reports the collector refused for good, since the outbox began.
    public var refusedCount: Int {
        state.withLock { _ in loadState().refused }
    }

    /// One pass: sends the ready reports, oldest first, until one fails, the budget is spent,
    /// or all are sent. Does nothing before a wait the last failure set has passed.
    public func send(now: Date = Date()) async -> Result {
        var result = Result()
        var current = state.withLock { _ in loadState() }
        if let until = current.stoppedUntil, until > now.timeIntervalSince1970 {
            result.stopped = true
            result.nextAttempt = Date(timeIntervalSince1970: until)
            result.remaining = outbox.reports().count
            return result
        }
        if let until = current.retryAt, until > now.timeIntervalSince1970 {
            result.nextAttempt = Date(timeIntervalSince1970: until)
            result.remaining = outbox.reports().count
            return result
        }
        let day = Int(now.timeIntervalSince1970 / 86_400)
        if current.budgetDay != day { (current.budgetDay, current.budgetSpent) = (day, 0) }
        var reports = outbox.reports()
        while let report = reports.first {
            guard let bytes = try? Data(contentsOf: report) else {
                // Gone since listed (delivered by another pass) or unreadable: skip it.
                reports.removeFirst()
                continue
            }
            if current.budgetSpent + bytes.count > configuration.dailyByteBudget && current.budgetSpent > 0 {
                result.nextAttempt = Date(timeIntervalSince1970: Double(day + 1) * 86_400)
                break
            }
            current.budgetSpent += bytes.count
            let answer = await upload(bytes, install: current.install)
            switch answer {
            case .stored:
                outbox.delivered(report)
                result.delivered += 1
                current.failures = 0
                current.retryAt = nil
                reports.removeFirst()
                continue
            case .refused(let reason):
                outbox.delivered(report)
                current.refused += 1
                result.refused.append("\(report.lastPathComponent): \(reason)")
                reports.removeFirst()
                continue
            case .stop(let seconds):
                current.stoppedUntil = now.timeIntervalSince1970 + max(seconds ?? configuration.stopDuration, 1)
                result.stopped = true
                result.nextAttempt = Date(timeIntervalSince1970: current.stoppedUntil!)
            case .later(let reason, let retryAfter):
                current.failures += 1
                let wait = max(backoff(failures: current.failures), retryAfter ?? 0)
                current.retryAt = now.timeIntervalSince1970 + wait
                result.lastFailure = reason
                result.nextAttempt = Date(timeIntervalSince1970: current.retryAt!)
            }
            break
        }
        result.remaining = outbox.reports().count
        let final = current
        state.withLock { _ in saveState(final) }
        return result
    }

    /// Sends until the task is cancelled: a pass, then a wait until the next try is due (or
    /// ``Configuration/pollInterval`` when nothing waits), then another.
    public func run() async {
        while !Task.isCancelled {
            let result = await send()
            let wait = result.nextAttempt.map { max($0.timeIntervalSinceNow, 1) } ?? configuration.pollInterval
            try? await Task.sleep(for: .seconds(wait))
        }
    }

    /// The wait after `failures` failures in a row: a random time between half the exponential
    /// bound and all of it ("equal jitter": spread, yet never a retry at once), at least a second.
    func backoff(failures: Int) -> TimeInterval {
        let bound = min(configuration.maxBackoff, configuration.initialBackoff * pow(2, Double(min(failures - 1, 30))))
        return max(1, Double.random(in: bound / 2...bound))
    }

    // MARK: - One upload

    enum Answer: Sendable, Hashable {
        case stored
        case refused(String)
        case stop(TimeInterval?)
        case later(String, retryAfter: TimeInterval?)
    }

    private func upload(_ bytes: Data, install: String) async -> Answer {
        var request = URLRequest(url: endpoint.appendingPathComponent("v1/reports"))
        request.httpMethod = "POST"
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue(ReportDigest.hex(of: bytes), forHTTPHeaderField: "Idempotency-Key")
        request.setValue(install, forHTTPHeaderField: "Rewind-Install")
        request.setValue("application/vnd.rewind.report", forHTTPHeaderField: "Content-Type")
        let response: URLResponse, body: Data
        do {
            (body, response) = try await session.upload(for: request, from: bytes)
        } catch {
            return .later("no answer (\(error.localizedDescription))", retryAfter: nil)
        }
        guard let http = response as? HTTPURLResponse else { return .later("not an HTTP answer", retryAfter: nil) }
        let retryAfter = (http.value(forHTTPHeaderField: "Retry-After")).flatMap(TimeInterval.init)
        let message = String(decoding: body.prefix(300), as: UTF8.self)
        switch http.statusCode {
        case 200, 201: return .stored
        case 410: return .stop(retryAfter)
        case 400, 403, 409, 413, 422: return .refused("HTTP \(http.statusCode) \(message)")
        // 401: the token is wrong or revoked; an update of the app may bring a new one. Kept.
        default: return .later("HTTP \(http.statusCode) \(message)", retryAfter: retryAfter)
        }
    }

    // MARK: - State, in the outbox folder

    /// What lasts across launches: the install id, the wait, the budget, the refused count.
    struct State: Codable {
        var install = UUID().uuidString.lowercased()
        var failures = 0
        var retryAt: Double?
        var stoppedUntil: Double?
        var budgetDay = 0
        var budgetSpent = 0
        var refused = 0
    }

    private var stateFile: URL { outbox.folder.appendingPathComponent("upload-state.json") }

    /// The saved state; a missing or unreadable one starts afresh (a new install id is made
    /// and saved at once, so it stays the same from then on).
    private func loadState() -> State {
        if let data = try? Data(contentsOf: stateFile), let state = try? JSONDecoder().decode(State.self, from: data) { return state }
        let fresh = State()
        saveState(fresh)
        return fresh
    }

    private func saveState(_ state: State) {
        try? outbox.makeFolder()
        guard let data = try? JSONEncoder().encode(state) else { return }
        // Replaced whole: a crash keeps the old state or the new.
        try? data.write(to: stateFile, options: .atomic)
    }
}
