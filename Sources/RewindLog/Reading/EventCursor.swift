import Foundation
import GRDB
import Rewind

/// Reads a log's events in seq order, a page at a time, so memory stays flat however long the
/// log is.
///
/// ```swift
/// var cursor = log.events(EventFilter(actionCase: "cart.*"))
/// while let event = try cursor.next() { … }
/// ```
///
/// Each page is its own short read, so a recorder can keep writing between pages; events
/// appended meanwhile are picked up if they match.
public struct EventCursor: Sendable {
    private let log: EventLog
    private let filter: EventFilter
    private let pageSize: Int
    private var page: [LoggedEvent] = []
    private var index = 0
    private var afterSeq: Int64 = .min
    private var delivered = 0
    private var exhausted = false

    init(log: EventLog, filter: EventFilter, pageSize: Int) {
        self.log = log
        self.filter = filter
        self.pageSize = max(1, pageSize)
    }

    /// The next event, or `nil` at the end.
    public mutating func next() throws(EventLogError) -> LoggedEvent? {
        if let limit = filter.limit, delivered >= limit { return nil }
        if index == page.count {
            guard !exhausted else { return nil }
            page = try log.page(filter: filter, after: afterSeq, count: pageSize)
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

extension EventLog {
    /// The events that match `filter`, in seq order, read a page at a time.
    ///
    /// - Parameters:
    ///   - filter: Which events.
    ///   - pageSize: How many events each read fetches.
    /// - Returns: A cursor over the events.
    public func events(_ filter: EventFilter = EventFilter(), pageSize: Int = 1_000) -> EventCursor {
        EventCursor(log: self, filter: filter, pageSize: pageSize)
    }

    /// The event at `seq`.
    ///
    /// - Throws: ``EventLogError/seqNotFound(path:seq:available:)`` when there is none.
    public func event(at seq: Int64) throws(EventLogError) -> LoggedEvent {
        guard let event = try page(filter: EventFilter(seqs: seq...seq), after: .min, count: 1).first else {
            throw .seqNotFound(path: path, seq: seq, available: try seqRange())
        }
        return event
    }

    func page(filter: EventFilter, after seq: Int64, count: Int) throws(EventLogError) -> [LoggedEvent] {
        try read { db in
            try refreshSymbols(db)
            var filter = filter
            if let session = filter.session {
                // Only between the session's own first and last seq: a later session's events
                // are found without walking every earlier one.
                guard let bounds = try Row.fetchOne(db, sql: "SELECT first_seq, last_seq FROM sessions WHERE id = ?", arguments: [session]),
                      let first: Int64 = bounds[0], let last: Int64 = bounds[1]
                else { return [] }
                let low = max(first, filter.seqs?.lowerBound ?? first), high = min(last, filter.seqs?.upperBound ?? last)
                guard low <= high else { return [] }
                filter.seqs = low...high
            }
            let (conditions, arguments) = filter.sqlConditions(after: seq)
            let sql = """
                SELECT e.seq, e.session_id, e.time, a.name, e.payload, e.info, e.redaction,
                       src.file, src.function, src.line, src."column", src.origin
                FROM events AS e JOIN sources AS src ON src.id = e.source_id JOIN actions AS a ON a.id = e.action_id
                WHERE \(conditions)
                ORDER BY e.seq LIMIT ?
                """
            let values = arguments + [count as any Sendable]
            let statementArguments = StatementArguments(values.map { Self.databaseValue($0) })
            return try Row.fetchAll(db, sql: sql, arguments: statementArguments).map(Self.event(from:))
        }
    }

    private static func databaseValue(_ value: any Sendable) -> DatabaseValue {
        switch value {
        case let value as Int64: value.databaseValue
        case let value as Int: value.databaseValue
        case let value as Double: value.databaseValue
        case let value as String: value.databaseValue
        default: .null
        }
    }

    /// Builds an event from a page row, reading columns by position (as the query lists
    /// them): by name, GRDB compares column names case-insensitively on every access.
    private static func event(from row: Row) -> LoggedEvent {
        let payloadValue: DatabaseValue = row[4]
        let payload: Data? = payloadValue.isNull ? nil : Data.fromDatabaseValue(payloadValue) ?? String.fromDatabaseValue(payloadValue).map { Data($0.utf8) }
        let line: Int64 = row[9], column: Int64 = row[10]
        return LoggedEvent(
            seq: row[0],
            session: row[1],
            time: row[2],
            actionCase: row[3],
            payload: payload,
            source: ActionSource(
                file: row[7], function: row[8], line: UInt(line), column: UInt(column),
                info: row[5], origin: ActionSource.Origin(rawValue: row[11]) ?? .call
            ),
            redaction: row[6]
        )
    }
}
