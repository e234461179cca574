import Foundation
import GRDB

/// How much history a log keeps. Trimming removes the oldest events, and always cuts at a
/// snapshot, so what remains still replays from the snapshot at its new start.
///
/// ```swift
/// configuration.retention = Retention(maxEvents: 100_000, maxAge: .seconds(7 * 86_400))
/// ```
public struct Retention: Sendable, Hashable {
    /// Keep at most about this many events (trimming cuts at the snapshot before the limit).
    public var maxEvents: Int?
    /// Keep at most about this many bytes of event payloads.
    public var maxBytes: Int?
    /// Keep events younger than this.
    public var maxAge: Duration?
    /// A recorder checks retention after this many commits.
    public var checkEvery: Int

    /// Creates a policy; a `nil` limit is no limit.
    public init(maxEvents: Int? = nil, maxBytes: Int? = nil, maxAge: Duration? = nil, checkEvery: Int = 64) {
        self.maxEvents = maxEvents
        self.maxBytes = maxBytes
        self.maxAge = maxAge
        self.checkEvery = max(1, checkEvery)
    }
}

extension EventLog {
    /// Removes the oldest history beyond `retention`, cutting at the latest snapshot before
    /// the first event that must go, so the log still replays from there.
    ///
    /// - Parameters:
    ///   - retention: The limits.
    ///   - now: The time that ages are measured from.
    /// - Returns: How many events were removed.
    @discardableResult
    public func trim(to retention: Retention, now: Date = Date()) throws(EventLogError) -> Int {
        try write { db in
            guard let last = try Int64.fetchOne(db, sql: "SELECT max(seq) FROM events") else { return 0 }
            // The first seq that must be kept under each limit; the strictest wins.
            var keepFrom: Int64 = 0
            if let maxEvents = retention.maxEvents {
                keepFrom = max(keepFrom, last - Int64(maxEvents) + 1)
            }
            if let maxAge = retention.maxAge {
                let seconds = Double(maxAge.components.seconds) + Double(maxAge.components.attoseconds) / 1e18
                let oldest = try Int64.fetchOne(db, sql: "SELECT min(seq) FROM events WHERE time >= ?", arguments: [now.timeIntervalSince1970 - seconds]) ?? last + 1
                keepFrom = max(keepFrom, oldest)
            }
            if let maxBytes = retention.maxBytes {
                let cut = try Int64.fetchOne(db, sql: """
                    SELECT seq FROM (
                        SELECT seq, sum(coalesce(length(payload), 0) + 32) OVER (ORDER BY seq DESC) AS kept
                        FROM events
                    ) WHERE kept > ? ORDER BY seq DESC LIMIT 1
                    """, arguments: [maxBytes])
                if let cut { keepFrom = max(keepFrom, cut + 1) }
            }
            // Cut at the latest snapshot before the first event to keep.
            guard keepFrom > 0,
                  let start = try Int64.fetchOne(db, sql: "SELECT max(seq) FROM snapshots WHERE seq < ?", arguments: [keepFrom]),
                  start > 0
            else { return 0 }
            try db.execute(sql: "DELETE FROM events WHERE seq <= ?", arguments: [start])
            let removed = db.changesCount
            try db.execute(sql: "DELETE FROM snapshots WHERE seq < ?", arguments: [start])
            try db.execute(sql: "UPDATE snapshots SET kind = 'retention' WHERE seq = ? AND kind = 'periodic'", arguments: [start])
            try db.execute(sql: """
                DELETE FROM sessions WHERE id NOT IN (SELECT session_id FROM events)
                    AND id NOT IN (SELECT session_id FROM snapshots)
                """)
            return removed
        }
    }
}
