public import Foundation
import GRDB
public import RewindLogCore

extension EventLog {
    /// Starts a recording session: records who is recording and the state before the first
    /// event (the session's initial snapshot), so the log can be replayed with nothing but the
    /// app's reducer. When the log was opened with a current key (`LogKeys.current`), the
    /// session's payloads and snapshots are encrypted with it.
    ///
    /// - Parameters:
    ///   - app: Who is recording.
    ///   - codec: How to encode this session's actions and states.
    ///   - initialState: The state before the session's first action.
    ///   - info: Free-form JSON to keep with the session (device, build, …).
    ///   - shapes: The shapes of the action and state types, so that a later build can say
    ///     what changed in them (`SchemaDrift`); none by default.
    ///   - date: When the session starts.
    /// - Returns: The new session.
    /// - Throws: `EventLogError`, e.g. when the state cannot be encoded.
    public func beginSession<State: Encodable>(
        app: AppIdentity,
        codec: any PayloadCodec = JSONPayloadCodec(),
        initialState: State,
        info: String? = nil,
        shapes: SessionShapes = SessionShapes(),
        at date: Date = Date()
    ) throws(EventLogError) -> LogSession {
        try writeEncoding { db in
            try insertSession(db, app: app, codec: codec, state: initialState, what: "initial state", info: info, shapes: shapes, at: date)
        }
    }

    /// The shapes of the types session `id` was recorded with; empty ones when it recorded none.
    ///
    /// - Throws: `EventLogError.sessionNotFound(path:session:)` when there is no such session,
    ///   `EventLogError.corrupt(path:detail:)` when a stored shape cannot be read.
    public func shapes(session id: Int64) throws(EventLogError) -> SessionShapes {
        guard let texts = try read({ db in try Self.shapeTexts(db, session: id) }) else { throw .sessionNotFound(path: path, session: id) }
        return try SessionShapes(storedAction: texts.action, state: texts.state, session: id, path: path)
    }

    /// The stored JSON of session `id`'s shapes, or `nil` when there is no such session.
    static func shapeTexts(_ db: Database, session id: Int64) throws -> (action: String?, state: String?)? {
        let row = try Row.fetchOne(db, sql: """
            SELECT a.shape AS action, st.shape AS state FROM sessions AS s
            LEFT JOIN type_shapes AS a ON a.id = s.action_shape_id
            LEFT JOIN type_shapes AS st ON st.id = s.state_shape_id
            WHERE s.id = ?
            """, arguments: [id])
        return try row.map { row in (try row.optional("action", in: "type_shapes"), try row.optional("state", in: "type_shapes")) }
    }

    /// The id of `shape`'s row in `type_shapes`, added if it is not there yet: each distinct
    /// shape is stored once, however many sessions share it.
    static func internShape(_ db: Database, _ shape: TypeShape?) throws -> Int64? {
        guard let shape else { return nil }
        let text = try shape.storedJSON()
        try db.execute(
            sql: "INSERT INTO type_shapes (fingerprint, shape) VALUES (?, ?) ON CONFLICT (shape) DO NOTHING",
            arguments: [shape.fingerprint, text]
        )
        return try Int64.fetchOne(db, sql: "SELECT id FROM type_shapes WHERE shape = ?", arguments: [text])
    }

    /// Inserts a session, encrypted with the current key if there is one, and its initial
    /// snapshot, numbered after the last seq ever assigned.
    private func insertSession<State: Encodable>(
        _ db: Database, app: AppIdentity, codec: any PayloadCodec, state: State, what: String, info: String?, shapes: SessionShapes, at date: Date
    ) throws -> LogSession {
        try LogText.require(app.id, "the app's id", path: path)
        try LogText.require(app.version, "the app's version", path: path)
        try LogText.require(info, "the session's info", path: path)
        // The log's own instance: a codec with symbols keeps them per log file.
        let codec = codecs[codec.name] ?? codec
        let encoded: Data
        do {
            encoded = try codec.encode(state)
        } catch {
            throw EventLogError.encodingFailed(path: path, seq: nil, actionCase: what, reason: "\(error)")
        }
        let encryption = keys.current.map(SessionEncryption.new(with:))
        // Sessions whose writers died are marked before this one begins (the black box reads
        // the mark; retention may then trim them).
        try markAbandonedSessions(db)
        try claimIdentity(db)
        let baseSeq = try Self.lastAssignedSeq(db)
        let actionShape = try Self.internShape(db, shapes.action), stateShape = try Self.internShape(db, shapes.state)
        // Live from before its row is in the log until its end is (see `SessionLock`).
        let uuid = UUID().uuidString.lowercased()
        let lock = try SessionLock.acquire(log: path, session: uuid)
        db.afterNextTransaction(
            onCommit: { [self] _ in sessionLocks.withLock { $0[uuid] = lock } },
            onRollback: { _ in lock.release() }
        )
        try db.execute(
            sql: """
                INSERT INTO sessions (app_id, app_version, action_schema_version, state_schema_version, codec, started_at, base_seq, info,
                                      key_id, key_salt, key_check, action_shape_id, state_shape_id, uuid)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [app.id, app.version, app.actionSchemaVersion, app.stateSchemaVersion, codec.name, date.timeIntervalSince1970, baseSeq, info,
                        encryption?.keyID, encryption?.salt, encryption?.check, actionShape, stateShape, uuid]
        )
        let session = LogSession(
            id: db.lastInsertedRowID, app: app, codec: codec.name, startedAt: date.timeIntervalSince1970, baseSeq: baseSeq, info: info,
            eventCount: 0, seqRange: nil, encryption: encryption,
            actionFingerprint: shapes.action?.fingerprint, stateFingerprint: shapes.state?.fingerprint
        )
        let storage = try storage(for: session)
        try Self.insertSnapshot(
            db, session: session.id, seq: baseSeq, time: date.timeIntervalSince1970, kind: "initial",
            columns: try storage.snapshotColumns(encoded, seq: baseSeq)
        )
        return session
    }

    /// Records `gap` and begins the session recording resumes in, from `state`, in one
    /// transaction: either both are in the log or neither is.
    package func recordGap<State: Encodable>(
        _ gap: LogGap,
        resumingWith app: AppIdentity,
        codec: any PayloadCodec,
        state: State,
        info: String?,
        shapes: SessionShapes,
        at date: Date
    ) throws(EventLogError) -> LogSession {
        try writeEncoding { db in
            let session = try insertSession(db, app: app, codec: codec, state: state, what: "state snapshot", info: info, shapes: shapes, at: date)
            var gap = gap
            gap.resumedSession = session.id
            try Self.insertGap(db, gap)
            try end(gap.session, as: .resumed, at: date, in: db)
            return session
        }
    }

    /// Ends session `id`: the log records that its recorder closed it, with its last seq, and
    /// it is no longer live, so retention may trim it like any other. The `Recorder` ends its
    /// session when it closes; a store recording through ``beginSession(app:codec:initialState:info:shapes:at:)``
    /// ends its own. Ending a session that has ended already changes nothing.
    ///
    /// A session this log began and never ended is marked `SessionEnding.Kind.unclean` by
    /// the next writer after this process stops (or after this log is closed or released).
    ///
    /// - Throws: `EventLogError.sessionNotFound(path:session:)` when there is no such session.
    public func endSession(_ id: Int64, at date: Date = Date()) throws(EventLogError) {
        try endSession(id, as: .closed, at: date)
    }

    /// Ends session `id` as `kind` (the recorder's path: ``SessionEnding/Kind/closed`` or
    /// ``SessionEnding/Kind/suspended``).
    package func endSession(_ id: Int64, as kind: SessionEnding.Kind, at date: Date) throws(EventLogError) {
        try write { db in
            guard try Int.fetchOne(db, sql: "SELECT 1 FROM sessions WHERE id = ?", arguments: [id]) != nil else {
                throw EventLogError.sessionNotFound(path: path, session: id)
            }
            try end(id, as: kind, at: date, in: db)
        }
    }

    /// Records session `id`'s end unless it has one, and lets go of its lock once that is
    /// committed.
    private func end(_ id: Int64, as kind: SessionEnding.Kind, at date: Date, in db: Database) throws {
        try db.execute(sql: """
            UPDATE sessions SET ending = ?, end_seq = coalesce(last_seq, base_seq), ended_at = ?
            WHERE id = ? AND ending IS NULL
            """, arguments: [kind.rawValue, date.timeIntervalSince1970, id])
        guard let uuid = try String.fetchOne(db, sql: "SELECT uuid FROM sessions WHERE id = ?", arguments: [id]) else { return }
        db.afterNextTransaction { [self] _ in
            sessionLocks.withLock { $0.removeValue(forKey: uuid) }?.release()
        }
    }

    /// Binds the log's identity to this file, or gives the log a new identity when the file is
    /// a copy (another inode, or an import) being recorded into for the first time: two copies
    /// recorded into are two logs, which a store must never take for one (schema 12,
    /// `log_identity.file`). A file whose inode cannot be read keeps its identity.
    private func claimIdentity(_ db: Database) throws {
        guard let inode = FileIdentity(path: fileOnDisk).map({ Int64(bitPattern: $0.inode) }) else { return }
        guard let row = try Row.fetchOne(db, sql: "SELECT file FROM log_identity LIMIT 1") else {
            throw RowDamage("the log_identity table is empty")
        }
        let bound = try row.optional(0, "log_identity.file", as: Int64.self)
        if bound == inode { return }
        if bound == nil {
            try db.execute(sql: "UPDATE log_identity SET file = ?", arguments: [inode])
        } else {
            try db.execute(sql: "UPDATE log_identity SET uuid = ?, file = ?", arguments: [UUID().uuidString.lowercased(), inode])
        }
    }

    /// Marks every session that has no end and whose lock no process holds as ended
    /// uncleanly, at its last committed event (`SessionEnding.Kind.unclean`): its writer died.
    /// Runs in the transaction that begins a session, and in retention's.
    func markAbandonedSessions(_ db: Database) throws {
        let unended = try Row.fetchAll(db, sql: """
            SELECT s.id, s.uuid, coalesce(s.last_seq, s.base_seq) AS seq,
                   coalesce((SELECT e.time FROM events AS e WHERE e.seq = s.last_seq), s.started_at) AS time
            FROM sessions AS s WHERE s.ending IS NULL
            """)
        for row in unended {
            let uuid = try row.required("uuid", in: "sessions", as: String.self)
            // A uuid names a file beside the log, so only a real one is looked up, never a path.
            // A damaged one can have no lock: the session is not live, and must not keep this
            // writer (which may be recording as it runs) from beginning its own.
            let lockable = UUID(uuidString: uuid) != nil
            if lockable, sessionLocks.withLock({ $0[uuid] != nil }) || SessionLock.isHeld(log: path, session: uuid) { continue }
            // A crash the hook saw (`CrashHook`), or a hang the watchdog saw and the process
            // never came out of (`HangMark`), left its mark in the lock file.
            let mark = lockable ? SessionLock.mark(log: path, session: uuid) : nil
            try db.execute(
                sql: "UPDATE sessions SET ending = ?, end_seq = ?, ended_at = ?, crash = ? WHERE id = ? AND ending IS NULL",
                arguments: [(mark?.kind ?? .unclean).rawValue,
                            try row.required("seq", in: "sessions", as: Int64.self),
                            mark?.time ?? (try row.required("time", in: "sessions", as: Double.self)),
                            mark?.storedText, try row.required("id", in: "sessions", as: Int64.self)]
            )
            if lockable { db.afterNextTransaction { [path] _ in SessionLock.remove(log: path, session: uuid) } }
            // Reported by the black box of the writer whose transaction marked it, once.
            if mark != nil && db.changesCount > 0 {
                let id = try row.required("id", in: "sessions", as: Int64.self)
                db.afterNextTransaction { [self] _ in markedSessions.withLock { $0.append(id) } }
            }
        }
    }

    /// Records `gap` where recording never resumed (the recorder closed first).
    package func recordGap(_ gap: LogGap) throws(EventLogError) {
        try write { db in try Self.insertGap(db, gap) }
    }

    static func insertGap(_ db: Database, _ gap: LogGap) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let cases = String(decoding: try encoder.encode(gap.cases), as: UTF8.self)
        try db.execute(
            sql: """
                INSERT INTO gaps (session_id, after_seq, lost, cases, reason, first_time, last_time, resumed_session_id)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [gap.session, gap.afterSeq, gap.lost, cases, gap.reason, gap.firstTime, gap.lastTime, gap.resumedSession]
        )
    }

    /// The recorded gaps, oldest first: of one session, or of every session.
    ///
    /// - Parameter session: The id of the session whose gaps to list; every session's when
    ///   `nil`.
    public func gaps(session: Int64?) throws(EventLogError) -> [LogGap] {
        try read { db in try Self.fetchGaps(db, session: session) }
    }

    static func fetchGaps(_ db: Database, session: Int64?) throws -> [LogGap] {
        let rows = try Row.fetchAll(db, sql: "SELECT * FROM gaps WHERE ?1 IS NULL OR session_id = ?1 ORDER BY id", arguments: [session])
        return try rows.map { row in
            let cases = try row.optional("cases", in: "gaps", as: String.self).flatMap { try? JSONDecoder().decode([String: Int].self, from: Data($0.utf8)) } ?? [:]
            return LogGap(
                session: try row.required("session_id", in: "gaps"), afterSeq: try row.required("after_seq", in: "gaps"),
                lost: try row.required("lost", in: "gaps"), cases: cases,
                reason: try row.required("reason", in: "gaps"), firstTime: try row.time("first_time", in: "gaps"),
                lastTime: try row.time("last_time", in: "gaps"),
                resumedSession: try row.optional("resumed_session_id", in: "gaps")
            )
        }
    }

    /// Every session, oldest first, with its event count and seq range.
    public func sessions() throws(EventLogError) -> [LogSession] {
        try read { db in try Row.fetchAll(db, sql: Self.sessionQuery + " ORDER BY s.id").map { row throws in try Self.session(from: row) } }
    }

    /// The session numbered `id`.
    ///
    /// - Throws: `EventLogError.sessionNotFound(path:session:)` when there is none.
    public func session(_ id: Int64) throws(EventLogError) -> LogSession {
        let found = try read { db in
            try Row.fetchOne(db, sql: Self.sessionQuery + " WHERE s.id = ?", arguments: [id]).map { row throws in try Self.session(from: row) }
        }
        guard let found else { throw .sessionNotFound(path: path, session: id) }
        return found
    }

    /// The session that recorded event `seq`.
    ///
    /// - Throws: `EventLogError.seqNotFound(path:seq:available:)` when there is no such event.
    public func session(containing seq: Int64) throws(EventLogError) -> LogSession {
        try session(try sessionID(containing: seq))
    }

    private func sessionID(containing seq: Int64) throws(EventLogError) -> Int64 {
        let id = try read { db in try Int64.fetchOne(db, sql: "SELECT session_id FROM events WHERE seq = ?", arguments: [seq]) }
        guard let id else { throw .seqNotFound(path: path, seq: seq, available: try seqRange()) }
        return id
    }

    /// The first and last seq in the log, or `nil` when it has no events.
    public func seqRange() throws(EventLogError) -> ClosedRange<Int64>? {
        try read { db in
            // Two subqueries, because SQLite answers a lone min() or max() of the rowid from the
            // b-tree's ends but scans every row for both in one select.
            let row = try Row.fetchOne(db, sql: "SELECT (SELECT min(seq) FROM events), (SELECT max(seq) FROM events)")
            guard let low = try row?.optional(0, "events.seq", as: Int64.self), let high = try row?.optional(1, "events.seq", as: Int64.self) else { return nil }
            // Each answer comes from one end of the b-tree: in a damaged file the ends can
            // disagree, and `...` traps on a reversed range.
            return try .checked(low, high, "the log's first and last seq")
        }
    }

    private static let sessionQuery = """
        SELECT s.id, s.app_id, s.app_version, s.action_schema_version, s.state_schema_version, s.codec,
               s.started_at, s.base_seq, s.info, s.event_count, s.first_seq, s.last_seq, s.key_id, s.key_salt, s.key_check,
               (SELECT fingerprint FROM type_shapes WHERE id = s.action_shape_id) AS action_fingerprint,
               (SELECT fingerprint FROM type_shapes WHERE id = s.state_shape_id) AS state_fingerprint,
               s.ending, s.end_seq, s.ended_at, s.crash
        FROM sessions AS s
        """

    private static func session(from row: Row) throws -> LogSession {
        let id = try row.required("id", in: "sessions", as: Int64.self)
        let first = try row.optional("first_seq", in: "sessions", as: Int64.self), last = try row.optional("last_seq", in: "sessions", as: Int64.self)
        var encryption: SessionEncryption?
        if let keyID = try row.optional("key_id", in: "sessions", as: String.self) {
            // Sizes are checked where the key is used (`storage(for:)`): listing sessions needs no key.
            encryption = SessionEncryption(
                keyID: keyID, salt: try row.optional("key_salt", in: "sessions", as: Data.self) ?? Data(),
                check: try row.optional("key_check", in: "sessions", as: Data.self) ?? Data()
            )
        }
        return LogSession(
            id: id,
            app: AppIdentity(
                id: try row.required("app_id", in: "sessions"),
                version: try row.required("app_version", in: "sessions"),
                actionSchemaVersion: try row.required("action_schema_version", in: "sessions"),
                stateSchemaVersion: try row.required("state_schema_version", in: "sessions")
            ),
            codec: try row.required("codec", in: "sessions"),
            startedAt: try row.time("started_at", in: "sessions"),
            baseSeq: try row.required("base_seq", in: "sessions"),
            info: try row.optional("info", in: "sessions"),
            eventCount: try row.required("event_count", in: "sessions"),
            seqRange: try first.flatMap { first in try last.map { try .checked(first, $0, "session \(id)'s seqs") } },
            encryption: encryption,
            actionFingerprint: try row.optional("action_fingerprint", in: "type_shapes"),
            stateFingerprint: try row.optional("state_fingerprint", in: "type_shapes"),
            ending: try ending(from: row)
        )
    }

    private static func ending(from row: Row) throws -> SessionEnding? {
        guard let text = try row.optional("ending", in: "sessions", as: String.self) else { return nil }
        guard let kind = SessionEnding.Kind(rawValue: text) else {
            throw RowDamage("sessions.ending holds text that is not one of \(SessionEnding.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        var ending = SessionEnding(
            kind: kind, seq: try row.required("end_seq", in: "sessions"),
            time: try row.optional("ended_at", in: "sessions", as: Double.self).map { time throws in
                guard time.isFinite else { throw RowDamage("sessions.ended_at holds a time that is not a finite number") }
                return time
            }
        )
        guard ending.setMark(storedText: try row.optional("crash", in: "sessions", as: String.self)) else {
            throw RowDamage("sessions.crash holds text that is not a \(kind == .hung ? "hang" : "crash") mark")
        }
        return ending
    }

    /// Sets the bounds and count of every session that has events, in one pass over them, as
    /// migration 0003 does: for writers that insert events with their seqs (import), into
    /// sessions that start without events.
    static func recomputeSessionBounds(_ db: Database) throws {
        try db.execute(sql: """
            WITH bounds AS (
                SELECT session_id, min(seq) AS first, max(seq) AS last, count(*) AS n
                FROM events GROUP BY session_id
            )
            UPDATE sessions SET first_seq = bounds.first, last_seq = bounds.last, event_count = bounds.n
            FROM bounds WHERE bounds.session_id = sessions.id
            """)
    }

    /// The largest seq ever given to an event, even one retention has deleted since: seqs are
    /// never reused (AUTOINCREMENT, schema 5), so a new session starts after it. (The larger of
    /// SQLite's record and the events' own, should a damaged file hold a record below them.)
    static func lastAssignedSeq(_ db: Database) throws -> Int64 {
        // Cached: asked once per transaction that appends, compiling it each time was 2 % of
        // the recorder's writer thread (`rewind-bench --workload record`, profiled).
        try Int64.fetchOne(db.cachedStatement(sql: """
            SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'events'), 0), coalesce((SELECT max(seq) FROM events), 0))
            """)) ?? 0
    }

    /// Stores a snapshot, already in the form its session stores (``SessionStorage``).
    static func insertSnapshot(_ db: Database, session: Int64, seq: Int64, time: Double, kind: String, state: DatabaseValue) throws {
        try insertSnapshot(db, session: session, seq: seq, time: time, kind: kind, columns: (state, nil))
    }

    /// Stores a snapshot from the columns ``SessionStorage/snapshotColumns(_:seq:)`` made.
    static func insertSnapshot(
        _ db: Database, session: Int64, seq: Int64, time: Double, kind: String, columns: (state: DatabaseValue, compression: String?)
    ) throws {
        try db.execute(
            sql: "INSERT OR REPLACE INTO snapshots (session_id, seq, time, kind, state, compression) VALUES (?, ?, ?, ?, ?, ?)",
            arguments: [session, seq, time, kind, columns.state, columns.compression]
        )
    }
}
