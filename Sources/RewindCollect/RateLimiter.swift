#if Collector
import Foundation
import Synchronization

/// Counts requests per key (a token, an install, an address) in fixed windows, and says when a
/// key has had its share: the answer carries how long until its window ends (Retry-After). A
/// window begins with the first request after the last one ended, not on the clock's minute, so
/// a quick run of requests is counted in one window wherever it falls on the clock.
///
/// Per process: several collectors behind a load balancer each allow the limit, so the
/// fleet's limit is the sum. Memory is bounded: a window's counts are dropped when it ends,
/// and at most `maxKeys` keys are counted in one window (past that, new keys are refused
/// until it ends: a flood of made-up install ids cannot grow the table).
final class RateLimiter: Sendable {
    let limit: Int
    let window: TimeInterval
    let maxKeys: Int
    private let state = Mutex<(start: TimeInterval, counts: [String: Int])>((0, [:]))

    init(limit: Int, window: TimeInterval, maxKeys: Int = 100_000) {
        self.limit = limit
        self.window = window
        self.maxKeys = maxKeys
    }

    /// Counts one request for `key`: `nil` when allowed, else the seconds until it may retry.
    func admit(_ key: String, now: TimeInterval = Date().timeIntervalSince1970) -> Int? {
        state.withLock { state in
            if now - state.start >= window {
                state = (now, [:])
            }
            let count = state.counts[key] ?? 0
            let retry = max(1, Int((state.start + window - now).rounded(.up)))
            guard count < limit else { return retry }
            guard count > 0 || state.counts.count < maxKeys else { return retry }
            state.counts[key] = count + 1
            return nil
        }
    }
}
#endif
