import Foundation
import Rewind

/// Reads a log's events in seq order, a page at a time, so memory stays flat however long the
/// log is: a page holds at most `pageSize` events, and after the first (at most 16) as many as
/// ``pageBytes`` of the last page's largest payload would make — so a log of large payloads (a
/// megabyte each) is read a few events at a time, not a thousand megabytes a page. (A run of
/// large payloads right after small ones still comes in one page of the small ones' size: the
/// sizes are known once read.)
///
/// ```swift
/// var cursor = log.events(EventFilter(actionCase: "cart.*"))
/// while let event = try cursor.next() { print(event.seq, event.actionCase) }
/// ```
///
/// Each page is its own short read, so a recorder can keep writing between pages; events
/// appended meanwhile are picked up if they match.
public struct EventCursor: Sendable {
    private let log: any LogReader
    private let filter: EventFilter
    private let pageSize: Int
    private var page: [LoggedEvent] = []
    private var index = 0
    private var afterSeq: Int64 = .min
    private var delivered = 0
    private var exhausted = false
    /// The last page's largest payload, in bytes.
    private var largest = 0
    private var pagesRead = 0

    /// The payload bytes a page is sized for (8 MiB).
    public static let pageBytes = 8 << 20
    /// Events in the first page at most: the payloads' sizes are not known yet.
    static let firstPageEvents = 16

    init(log: any LogReader, filter: EventFilter, pageSize: Int) {
        self.log = log
        self.filter = filter
        self.pageSize = max(1, pageSize)
    }

    /// The next event, or `nil` at the end.
    public mutating func next() throws(EventLogError) -> LoggedEvent? {
        if let limit = filter.limit, delivered >= limit { return nil }
        if index == page.count {
            guard !exhausted else { return nil }
            let asked = pagesRead == 0
                ? min(pageSize, Self.firstPageEvents)
                : min(pageSize, max(1, Self.pageBytes / max(largest, 1)))
            page = try log.eventPage(filter, after: afterSeq, count: asked, newestFirst: false)
            pagesRead += 1
            index = 0
            largest = page.reduce(0) { max($0, $1.payload?.count ?? 0) }
            if page.count < asked { exhausted = true }
            guard let last = page.last else { return nil }
            afterSeq = last.seq
        }
        defer {
            index += 1
            delivered += 1
        }
        return page[index]
    }

    /// Reads every remaining event into an array (for small logs and tests).
    public mutating func collect() throws(EventLogError) -> [LoggedEvent] {
        var events: [LoggedEvent] = []
        while let event = try next() { events.append(event) }
        return events
    }
}
