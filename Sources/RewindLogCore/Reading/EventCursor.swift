import Foundation
import Rewind

/// Reads a log's events in seq order, a page at a time, so memory stays flat however long the
/// log is.
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
            page = try log.eventPage(filter, after: afterSeq, count: pageSize, newestFirst: false)
            index = 0
            if page.count < pageSize { exhausted = true }
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
