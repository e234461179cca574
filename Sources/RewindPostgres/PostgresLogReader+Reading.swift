public import Foundation
import NIOCore
import PostgresNIO
import Rewind
public import RewindCodingCore
public import RewindLog

extension PostgresLogReader {
    // MARK: - Naming

    public func identity() throws(EventLogError) -> UUID? { origin }

    /// The latest log schema: the store's rows read as a log of the latest schema does.
    public func schemaVersion() throws(EventLogError) -> Int { EventLog.latestSchemaVersion }

    public func storedSymbols() throws(EventLogError) -> [CodecSymbol] {
        try symbols(after: 0)
    }

    // MARK: - Sessions

    public func sessions() throws(EventLogError) -> [LogSession] {
        try sessions(where: "TRUE")
    }

    public func session(_ id: Int64) throws(EventLogError) -> LogSession {
        guard let found = try sessions(where: "s.\(numberColumn) = \(id)").first else {
            throw .sessionNotFound(path: path, session: id)
        }
        return found
    }

    /// The session whose events span `seq`, then the event itself: the store has no index on a
    /// pushed event's seq alone, but one on (session, seq), and a log has few sessions.
    public func session(containing seq: Int64) throws(EventLogError) -> LogSession {
        let all = try sessions()
        for session in all where session.seqRange?.contains(seq) == true {
            let id = try storeID(of: session.id)
            let found = try rows("SELECT 1 FROM rewind.events WHERE session_id = \(id) AND \(unescaped: seqColumn) = \(seq)", doing: "find event \(seq)")
            if !found.isEmpty { return session }
        }
        throw .seqNotFound(path: path, seq: seq, available: Self.range(of: all))
    }

    public func seqRange() throws(EventLogError) -> ClosedRange<Int64>? {
        Self.range(of: try sessions())
    }

    /// From the first session's first seq to the last's last.
    static func range(of sessions: [LogSession]) -> ClosedRange<Int64>? {
        let ranges = sessions.compactMap(\.seqRange)
        guard let low = ranges.map(\.lowerBound).min(), let high = ranges.map(\.upperBound).max() else { return nil }
        return low...high
    }

    /// The log's sessions whose events may fall in `seqs`, chosen by the server: the page of an
    /// event (`event(at:)`, once for each session a fleet question finds) or of a cursor read
    /// every session of the store before, all of them decoded to keep a few — a fleet bisect
    /// over 1,000 sessions spent a quarter of its time there. The caller still checks each
    /// session's range (a damaged store's reversed bounds are no range).
    private func sessions(overlapping seqs: ClosedRange<Int64>) throws(EventLogError) -> [LogSession] {
        let seq = seqColumn
        let bound = { (end: String) in "(SELECT e.\(seq) FROM rewind.events AS e WHERE e.session_id = s.id AND e.seq = s.\(end))" }
        return try sessions(where: "\(bound("first_seq")) <= \(seqs.upperBound) AND \(bound("last_seq")) >= \(seqs.lowerBound)")
    }

    /// The log's sessions that also meet `condition` (SQL over `rewind.sessions AS s`, made
    /// here of numbers only), in order, with their seqs as the log numbers them.
    private func sessions(where condition: String) throws(EventLogError) -> [LogSession] {
        let number = numberColumn, seq = seqColumn
        let found = try rows("""
            SELECT s.id, s.\(unescaped: number), s.app_id, s.app_version, s.action_schema_version, s.state_schema_version, s.codec,
                   s.started_at, coalesce((SELECT p.\(unescaped: seq) FROM rewind.snapshots AS p WHERE p.session_id = s.id AND p.seq = s.base_seq), s.base_seq),
                   s.info, s.event_count,
                   (SELECT e.\(unescaped: seq) FROM rewind.events AS e WHERE e.session_id = s.id AND e.seq = s.first_seq),
                   (SELECT e.\(unescaped: seq) FROM rewind.events AS e WHERE e.session_id = s.id AND e.seq = s.last_seq),
                   s.key_id, s.key_salt, s.key_check, a.fingerprint, t.fingerprint, s.ending, s.end_seq, s.ended_at, s.crash
            FROM rewind.sessions AS s
                 LEFT JOIN rewind.type_shapes AS a ON a.id = s.action_shape_id LEFT JOIN rewind.type_shapes AS t ON t.id = s.state_shape_id
            WHERE \(unescaped: selection) AND \(unescaped: condition)
            ORDER BY 2
            """, doing: "read the log's sessions")
        let sessions = try decoding("the log's sessions") {
            try found.map { row -> (storeID: Int64, session: LogSession) in
                let columns = row.makeRandomAccess()
                func column<T: PostgresDecodable>(_ index: Int, _ type: T.Type) throws -> T { try columns[index].decode(T.self) }
                let number = try column(1, Int64?.self) ?? 0
                let first = try column(11, Int64?.self), last = try column(12, Int64?.self)
                let encryption = try column(13, String?.self).map { keyID in
                    SessionEncryption(keyID: keyID, salt: try column(14, Data?.self) ?? Data(), check: try column(15, Data?.self) ?? Data())
                }
                return (try column(0, Int64.self), LogSession(
                    id: number,
                    app: AppIdentity(
                        id: try column(2, String.self), version: try column(3, String.self),
                        actionSchemaVersion: try column(4, Int.self), stateSchemaVersion: try column(5, Int.self)
                    ),
                    codec: try column(6, String.self), startedAt: try column(7, Double.self), baseSeq: try column(8, Int64.self),
                    info: try column(9, String?.self), eventCount: try column(10, Int64.self),
                    // Bounds a damaged store holds reversed are no range, never a trap.
                    seqRange: first.flatMap { first in last.flatMap { first <= $0 ? first...$0 : nil } },
                    encryption: encryption, actionFingerprint: try column(16, String?.self), stateFingerprint: try column(17, String?.self),
                    ending: try SessionEnding.stored(
                        kind: column(18, String?.self), seq: column(19, Int64?.self), time: column(20, Double?.self), crash: column(21, String?.self), session: number, path: path
                    )
                ))
            }
        }
        rememberStoreIDs(sessions.map { ($0.session.id, $0.storeID) })
        return sessions.map(\.session)
    }

    public func shapes(session id: Int64) throws(EventLogError) -> SessionShapes {
        let storeID = try storeID(of: id)
        let found = try rows("""
            SELECT a.shape, t.shape FROM rewind.sessions AS s
                 LEFT JOIN rewind.type_shapes AS a ON a.id = s.action_shape_id LEFT JOIN rewind.type_shapes AS t ON t.id = s.state_shape_id
            WHERE s.id = \(storeID)
            """, doing: "read session \(id)'s type shapes")
        let (action, state) = try decoding("session \(id)'s type shapes") { try found.first?.decode((String?, String?).self) ?? (nil, nil) }
        return try SessionShapes(storedAction: action, state: state, session: id, path: path)
    }

    public func gaps(session: Int64?) throws(EventLogError) -> [LogGap] {
        let number = numberColumn, seq = seqColumn
        var storeID: Int64?
        if let session {
            guard let id = try storeIDIfAny(of: session) else { return [] }
            storeID = id
        }
        let found = try rows("""
            SELECT s.\(unescaped: number),
                   coalesce((SELECT e.\(unescaped: seq) FROM rewind.events AS e WHERE e.session_id = g.session_id AND e.seq = g.after_seq),
                            (SELECT p.\(unescaped: seq) FROM rewind.snapshots AS p WHERE p.session_id = g.session_id AND p.seq = g.after_seq),
                            g.after_seq),
                   g.lost, g.cases, g.reason, g.first_time, g.last_time,
                   (SELECT r.\(unescaped: number) FROM rewind.sessions AS r WHERE r.id = g.resumed_session_id)
            FROM rewind.gaps AS g JOIN rewind.sessions AS s ON s.id = g.session_id
            WHERE \(unescaped: selection) AND (\(storeID)::bigint IS NULL OR g.session_id = \(storeID))
            ORDER BY 1, 2
            """, doing: "read the recorded gaps")
        return try decoding("the recorded gaps") {
            try found.map { row in
                let (session, afterSeq, lost, cases, reason, firstTime, lastTime, resumed) = try row.decode(
                    (Int64, Int64, Int64, String, String, Double, Double, Int64?).self
                )
                return LogGap(
                    session: session, afterSeq: afterSeq, lost: Int(clamping: lost),
                    cases: (try? JSONDecoder().decode([String: Int].self, from: Data(cases.utf8))) ?? [:], reason: reason,
                    firstTime: firstTime, lastTime: lastTime, resumedSession: resumed
                )
            }
        }
    }

    // MARK: - Snapshots

    public func snapshot(session: Int64, atOrBefore seq: Int64) throws(EventLogError) -> LoggedSnapshot? {
        guard let storeID = try storeIDIfAny(of: session) else { return nil }
        let found = try self.session(session)
        try refreshSymbols()
        let rows = try rows("""
            SELECT \(unescaped: seqColumn), time, kind, state FROM rewind.snapshots
            WHERE session_id = \(storeID) AND \(unescaped: seqColumn) <= \(seq) ORDER BY \(unescaped: seqColumn) DESC LIMIT 1
            """, doing: "read session \(session)'s snapshot")
        guard let row = rows.first else { return nil }
        let (at, time, kind, state) = try decoding("session \(session)'s snapshot") { try row.decode((Int64, Double, String, Data).self) }
        return LoggedSnapshot(session: session, seq: at, time: time, kind: kind, state: state, keyID: found.encryption?.keyID)
    }

    public func snapshotIndex(session: Int64) throws(EventLogError) -> [(seq: Int64, kind: String, time: Double)] {
        guard let storeID = try storeIDIfAny(of: session) else { return [] }
        let found = try rows("""
            SELECT \(unescaped: seqColumn), kind, time FROM rewind.snapshots WHERE session_id = \(storeID) ORDER BY \(unescaped: seqColumn)
            """, doing: "read session \(session)'s snapshots")
        return try decoding("session \(session)'s snapshots") {
            try found.map { row in let (seq, kind, time) = try row.decode((Int64, String, Double).self); return (seq, kind, time) }
        }
    }

    // MARK: - Events

    /// Pages by (session, seq): a session at a time, in order, while the sessions' seqs do not
    /// overlap (a log one recorder wrote); otherwise one statement over the sessions in range,
    /// ordered by seq.
    public func eventPage(_ filter: EventFilter, after seq: Int64, count: Int, newestFirst: Bool) throws(EventLogError) -> [LoggedEvent] {
        guard count > 0 else { return [] }
        let low = max(seq == .max ? seq : seq + 1, filter.seqs?.lowerBound ?? .min), high = filter.seqs?.upperBound ?? .max
        guard low <= high else { return [] }
        let chosen: [LogSession]
        if let number = filter.session {
            do { chosen = [try session(number)] } catch .sessionNotFound { return [] }
        } else {
            chosen = try sessions(overlapping: low...high)
        }
        var candidates = chosen.filter { $0.seqRange?.overlaps(low...high) == true }
        guard !candidates.isEmpty else { return [] }
        candidates.sort { ($0.seqRange?.lowerBound ?? 0) < ($1.seqRange?.lowerBound ?? 0) }
        if newestFirst { candidates.reverse() }
        let disjoint = zip(candidates, candidates.dropFirst()).allSatisfy { pair in
            guard let one = pair.0.seqRange, let other = pair.1.seqRange else { return true }
            return !one.overlaps(other)
        }
        try refreshSymbols()
        let batches = disjoint ? candidates.map { [$0] } : [candidates]
        var page: [LoggedEvent] = []
        for batch in batches where page.count < count {
            let ids = try batch.map { session throws(EventLogError) in try storeID(of: session.id) }
            page += try events(of: batch, storeIDs: ids, filter, from: low, through: high, count: count - page.count, newestFirst: newestFirst)
        }
        return page
    }

    /// Up to `count` events of `sessions` (the store's `ids`) that `filter` selects, from `low`
    /// through `high`.
    private func events(
        of sessions: [LogSession], storeIDs ids: [Int64], _ filter: EventFilter, from low: Int64, through high: Int64, count: Int, newestFirst: Bool
    ) throws(EventLogError) -> [LoggedEvent] {
        let seq = seqColumn, number = numberColumn
        let file = filter.file, line = filter.line.map(Int64.init), times = filter.times
        // Case paths match as the file's GLOB does: with a `*`, `*` for any run and `?` for any
        // one character; otherwise exactly.
        let pattern = filter.actionCase.map { text in
            text.contains("*")
                ? "^" + NSRegularExpression.escapedPattern(for: text).replacingOccurrences(of: "\\*", with: ".*").replacingOccurrences(of: "\\?", with: ".") + "$"
                : nil
        }
        let exact = filter.actionCase.flatMap { $0.contains("*") ? nil : $0 }
        let found = try rows("""
            SELECT e.\(unescaped: seq), s.\(unescaped: number), e.time, a.name, e.payload, e.info, e.redaction,
                   src.file, src.function, src.line, src."column", src.origin, e.cause_distance, e.root_distance
            FROM rewind.events AS e JOIN rewind.sessions AS s ON s.id = e.session_id
                 LEFT JOIN rewind.actions AS a ON a.id = e.action_id LEFT JOIN rewind.sources AS src ON src.id = e.source_id
            WHERE e.session_id = ANY(\(ids)) AND e.\(unescaped: seq) BETWEEN \(low) AND \(high)
              AND (\(times?.lowerBound)::double precision IS NULL OR e.time BETWEEN \(times?.lowerBound) AND \(times?.upperBound))
              AND (\(exact)::text IS NULL OR a.name = \(exact))
              AND (\(pattern ?? nil)::text IS NULL OR a.name ~ \(pattern ?? nil))
              AND (\(file)::text IS NULL OR strpos(src.file, \(file)) > 0)
              AND (\(line)::bigint IS NULL OR src.line = \(line))
            ORDER BY e.\(unescaped: seq) \(unescaped: newestFirst ? "DESC" : "ASC") LIMIT \(Int64(count))
            """, doing: "read the log's events")
        let keys = Dictionary(sessions.map { ($0.id, $0.encryption?.keyID) }, uniquingKeysWith: { first, _ in first })
        return try decoding("the log's events") {
            try found.map { row in
                let columns = row.makeRandomAccess()
                func column<T: PostgresDecodable>(_ index: Int, _ type: T.Type) throws -> T { try columns[index].decode(T.self) }
                let seq = try column(0, Int64.self), session = try column(1, Int64.self)
                // Outer joins, so that a damaged store's event is an error, not a gap in the page.
                guard let actionCase = try column(3, String?.self), try column(7, String?.self) != nil else {
                    throw EventLogError.corrupt(path: path, detail: "event \(seq) names a case or source that the store's actions or sources table does not hold")
                }
                return LoggedEvent(
                    seq: seq, session: session, time: try column(2, Double.self), actionCase: actionCase,
                    payload: try column(4, Data?.self),
                    source: ActionSource(
                        file: try column(7, String.self), function: try column(8, String.self),
                        // A negative line or column can only be tampering: read as 0, never trapped on.
                        line: UInt(clamping: try column(9, Int64.self)), column: UInt(clamping: try column(10, Int64.self)),
                        info: try column(5, String?.self), origin: ActionSource.Origin(rawValue: try column(11, String.self)) ?? .call
                    ),
                    redaction: try column(6, String?.self), keyID: keys[session] ?? nil,
                    cause: LoggedEvent.linked(seq, back: try column(12, Int64?.self), atLeast: 1),
                    root: LoggedEvent.linked(seq, back: try column(13, Int64?.self), atLeast: 0)
                )
            }
        }
    }

    /// A replay's pages: 256 events first (their payloads' sizes are not known yet), then as
    /// many as 8 MiB of the last page's largest payload would make, at most 4,096.
    static let replayPages = PageSizing(first: 256, maximum: 4_096, bytes: 8 << 20)
    /// How much smaller a page is asked for again when the server could not build it: from the
    /// largest, three refusals at most (4,096, 256, 16, 1).
    static let pageShrink = 16

    public func forEachRawEvent(
        session: Int64, from first: Int64, through last: Int64, _ body: (RawEvent) throws(EventLogError) -> FoldStep
    ) throws(EventLogError) -> Bool {
        guard first <= last, let storeID = try storeIDIfAny(of: session) else { return false }
        let seq = seqColumn
        /// Sends the query for the `count` events from `next`, after learning the symbols their
        /// payloads may name. A page is one row of four arrays, an element an event, read in
        /// place (``EventPage``): a row an event cost the fold's thread more than decoding the
        /// event (0.50–0.70× of the file's replay against 0.92–1.18× this way, the bench's
        /// postgres workload).
        func ask(from next: Int64, count: Int) throws(EventLogError) -> (query: StartedQuery, from: Int64, count: Int) {
            try refreshSymbols()
            return (start("""
                SELECT array_agg(page.seq), array_agg(page.action_id), array_agg(page.payload), array_agg(page.redaction) FROM (
                    SELECT \(unescaped: seq) AS seq, action_id, payload, redaction FROM rewind.events
                    WHERE session_id = \(storeID) AND \(unescaped: seq) BETWEEN \(next) AND \(last) ORDER BY \(unescaped: seq) LIMIT \(Int64(count))
                ) AS page
                """), next, count)
        }
        var pending = try ask(from: first, count: Self.replayPages.first)
        while true {
            let rows: [PostgresRow]
            switch try answer(pending.query, doing: "read session \(session)'s events") {
            case let .rows(answered):
                rows = answered
            case let .pastValueLimit(error):
                // A page sized from smaller payloads before it, past the server's limit of 1 GB
                // on one array (4,096 events of 256 KB after a page of small ones): the same
                // events again, a sixteenth as many, until they fit (one payload always does);
                // the page after is sized from their payloads as usual.
                guard pending.count > 1 else { throw PostgresFailure.describe(error, at: location, doing: "read session \(session)'s events") }
                pending = try ask(from: pending.from, count: max(1, pending.count / Self.pageShrink))
                continue
            }
            let page = try decoding("session \(session)'s events") { try EventPage(rows) }
            // The next page is asked for before this one is folded, so that the server reads and
            // sends it meanwhile (the bench's 40,000 events: a replay took 68 ms waiting for each
            // page, and its fold alone about 40 ms). At most two pages are held, each sized by
            // the payloads of the page before (and asked for again smaller, above, when that
            // made it too large for the server). A short page is the last; a seq
            // at the top of the range has no successor. A fold that stops early leaves the next
            // page unread: its answer is dropped.
            var following: (query: StartedQuery, from: Int64, count: Int)?
            if page.seqs.count == pending.count, let lastSeq = page.order.last.map({ page.seqs[$0] }), lastSeq < last {
                let largest = page.payloadPlaces.elements.reduce(0) { max($0, $1?.count ?? 0) }
                following = try ask(from: lastSeq + 1, count: Self.replayPages.next(largest: largest))
            }
            var names = actionNames.withLock { $0 }
            let stopped = page.payloads.withUnsafeReadableBytes { bytes in
                Result { () throws(EventLogError) -> Bool in
                    for index in page.order {
                        let id = Int(clamping: page.actionIDs[index])
                        if id > names.count { names = try self.names(holding: id) }
                        // Borrowed from the row's buffer for the call, as a file's rows are.
                        let payload = page.payloadPlaces.elements[index].map { UnsafeRawBufferPointer(rebasing: bytes[$0]) }
                        let event = RawEvent(seq: page.seqs[index], actionID: id, names: names, payload: payload, redaction: page.redaction(index))
                        if try body(event) == .stop { return true }
                    }
                    return false
                }
            }
            if try stopped.get() { return true }
            guard let following else { return false }
            pending = following
        }
    }

    /// Remembers store ids learned from a listing.
    private func rememberStoreIDs(_ pairs: [(number: Int64, storeID: Int64)]) {
        storeIDs.withLock { cache in for (number, id) in pairs { cache[number] = id } }
    }
}
