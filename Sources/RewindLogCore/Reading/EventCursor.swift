import Foundation
import Rewind

/// Reads a log's events in seq order, a page at a time, so memory stays flat however long the
/// log is: a page holds at most `pageSize` events, and after the first (at most 16) as many as
/// ``pageBytes`` of the last page's largest payload would make (`PageSizing`), so a log of
/// large payloads (a megabyte each) is read a few events at a time, not a thousand megabytes a
/// page.
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
    private let sizing: PageSizing
    private var page: [LoggedEvent] = []
    private var index = 0
    private var afterSeq: Int64 = .min
    private var delivered = 0
    private var exhausted = false

    /// The payload bytes a page is sized for (8 MiB).
    public static let pageBytes = 8 << 20

    init(log: any LogReader, filter: EventFilter, pageSize: Int) {
        self.log = log
        self.filter = filter
        // The first page at most 16 events: the payloads' sizes are not known yet.
        sizing = PageSizing(first: 16, maximum: max(1, pageSize), bytes: Self.pageBytes)
    }

    /// The next event, or `nil` at the end.
    public mutating func next() throws(EventLogError) -> LoggedEvent? {
        if let limit = filter.limit, delivered >= limit { return nil }
        if index == page.count {
            guard !exhausted else { return nil }
            let asked = sizing.next(after: page)
            page = try log.eventPage(filter, after: afterSeq, count: asked, newestFirst: false)
            index = 0
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
