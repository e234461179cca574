import Foundation
import GRDB
import Rewind
public import RewindLogCore

extension EventLog {
    /// The SQLite page: the filter's conditions over the events table, joined with the
    /// sources, case paths, sessions and shared payloads each event names.
    public func eventPage(_ filter: EventFilter, after seq: Int64, count: Int, newestFirst: Bool) throws(EventLogError) -> [LoggedEvent] {
        // SQLite reads a negative LIMIT as none at all.
        guard count > 0 else { return [] }
        return try read { db in
            try refreshSymbols(db)
            var filter = filter
            if let session = filter.session {
                // Only between the session's own first and last seq: a later session's events
                // are found without walking every earlier one.
                guard let bounds = try Row.fetchOne(db, sql: "SELECT first_seq, last_seq FROM sessions WHERE id = ?", arguments: [session]),
                      let first = try bounds.optional(0, "sessions.first_seq", as: Int64.self),
                      let last = try bounds.optional(1, "sessions.last_seq", as: Int64.self)
                else { return [] }
                let low = max(first, filter.seqs?.lowerBound ?? first), high = min(last, filter.seqs?.upperBound ?? last)
                guard low <= high else { return [] }
                filter.seqs = low...high
            }
            let (conditions, arguments) = filter.sqlConditions(after: seq)
            let sql = """
                SELECT e.seq, e.session_id, e.time, a.name, e.payload, e.info, e.redaction,
                       src.file, src.function, src.line, src."column", src.origin, s.key_id, p.bytes,
                       e.cause_distance, e.root_distance
                FROM events AS e LEFT JOIN sources AS src ON src.id = e.source_id LEFT JOIN actions AS a ON a.id = e.action_id
                     LEFT JOIN sessions AS s ON s.id = e.session_id LEFT JOIN payloads AS p ON p.id = e.payload
                WHERE \(conditions)
                ORDER BY e.seq \(newestFirst ? "DESC" : "ASC") LIMIT ?
                """
            let values = arguments + [count as any Sendable]
            let statementArguments = StatementArguments(values.map { Self.databaseValue($0) })
            return try Row.fetchAll(db, sql: sql, arguments: statementArguments).map { row throws in try Self.event(from: row) }
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
    /// them): by name, GRDB compares column names case-insensitively on every access. The
    /// joins are outer so that an event whose case or source id points nowhere is reported,
    /// not silently skipped.
    private static func event(from row: Row) throws -> LoggedEvent {
        let seq = try row.required(0, "events.seq", as: Int64.self)
        let payload: Data?
        if case let .int64(id) = (row[4] as DatabaseValue).storage {
            // A reference to a payload stored once for every event that repeats it.
            guard let bytes = try row.bytes(13, "payloads.bytes") else { throw SharedPayloads.missing(id, seq: seq) }
            payload = bytes
        } else {
            payload = try row.bytes(4, "events.payload")
        }
        guard try row.optional(3, "actions.name", as: String.self) != nil, try row.optional(7, "sources.file", as: String.self) != nil else {
            throw RowDamage("event \(seq) names a case or source that the actions or sources table does not hold")
        }
        let line = try row.required(9, "sources.line", as: Int64.self), column = try row.required(10, "sources.column", as: Int64.self)
        return LoggedEvent(
            seq: seq,
            session: try row.required(1, "events.session_id"),
            time: try row.time(2, "events.time"),
            actionCase: try row.required(3, "actions.name"),
            payload: payload,
            source: ActionSource(
                // A negative line or column can only be tampering: read as 0, never trapped on.
                file: try row.required(7, "sources.file"), function: try row.required(8, "sources.function"),
                line: UInt(clamping: line), column: UInt(clamping: column),
                info: try row.optional(5, "events.info"), origin: ActionSource.Origin(rawValue: try row.required(11, "sources.origin")) ?? .call
            ),
            redaction: try row.optional(6, "events.redaction"),
            keyID: try row.optional(12, "sessions.key_id"),
            cause: LoggedEvent.linked(seq, back: try row.optional(14, "events.cause_distance"), atLeast: 1),
            root: LoggedEvent.linked(seq, back: try row.optional(15, "events.root_distance"), atLeast: 0)
        )
    }
}
