import Foundation
import PostgresNIO
import Rewind
import RewindCodingCore
public import RewindLog
import Synchronization

extension RecordingDestination {
    /// A PostgreSQL store: the recorder's sessions go straight into it, for a server-side
    /// service that keeps its history in the database it already runs.
    ///
    /// ```swift
    /// let destination = try await RecordingDestination.postgres(location, install: "api-7f3c")
    /// let recorder = Recorder<ShopState, ShopAction>(into: destination, app: AppIdentity(id: "com.example.shop"))
    /// ```
    ///
    /// The recorder gets a connection of its own (opening it creates or migrates the store's
    /// schema), and closes it when it stops. Its sessions are numbered by the store, with seqs
    /// from the store's sequence: each session's order is exact, and any number of recorders and
    /// pushers write at once. A write that fails (the server restarted, the network cut) is a
    /// failed batch like a full disk for a file: reported, recorded as a gap once writing works
    /// again — the recorder connects again on its next batch — and recording resumes in a new
    /// session from the live state.
    ///
    /// Payloads are recorded with a text or JSON codec (the default); the binary codec's symbol
    /// table, and encryption, are for log files today. Retention is the store's to manage
    /// (partitions, `DELETE`): the recorder does not trim a store.
    ///
    /// - Parameters:
    ///   - location: The store.
    ///   - install: The install, device or service instance recording, kept with each session
    ///     (what `rewind sessions --install` and fleet questions choose by).
    ///   - queryTimeout: How long the writer waits on one statement before it fails the batch
    ///     and closes the connection, to connect again on its next batch (10 s by default: a
    ///     batch is small). The app itself never waits that long: dispatch waits at most the
    ///     recorder's `stallLimit` on a store that commits nothing.
    /// - Throws: `EventLogError` when the store cannot be reached or opened for writing.
    public static func postgres(
        _ location: PostgresLocation, install: String? = nil, queryTimeout: Duration = .seconds(10)
    ) async throws(EventLogError) -> RecordingDestination {
        let store = try await PostgresRecordingLog.connect(location, install: install, queryTimeout: queryTimeout)
        return RecordingDestination(PostgresRecordingLog(store: store, install: install))
    }
}

/// A PostgreSQL store as a recorder's log (``RecordingLog``): synchronous, as the writer thread
/// is, over postgres-nio's async API (``SynchronousWait``).
///
/// One recorder uses it, from one thread at a time — the binding thread begins the session,
/// then the writer thread does the rest — so its statements never interleave on the
/// connection.
final class PostgresRecordingLog: RecordingLog {
    let location: PostgresLocation
    let install: String?
    /// The statement deadline of every connection the writer opens.
    let queryTimeout: Duration
    /// The connection; `nil` after it was lost, until the next write connects again.
    private let store: Mutex<PostgresLog?>
    /// Ids of call sites and case paths already in the store: found or added outside the
    /// batch's transaction, so they stay whatever becomes of it.
    private let ids = Mutex<(sources: [SourceKey: Int64], actions: [String: Int64])>(([:], [:]))
    private let wait = SynchronousWait(label: "RewindPostgres.recording")

    init(store: PostgresLog, install: String?) {
        location = store.location
        queryTimeout = store.queryTimeout
        self.install = install
        self.store = Mutex(store)
    }

    var path: String { location.description }

    /// Opens the writer's connection, named `rewind recorder` and the install in
    /// `pg_stat_activity`.
    static func connect(_ location: PostgresLocation, install: String?, queryTimeout: Duration) async throws(EventLogError) -> PostgresLog {
        try await PostgresLog.open(
            location, mode: .readWrite, connectTimeout: .seconds(10), queryTimeout: queryTimeout, migrationLockWait: PostgresMigrator.defaultLockWait,
            role: role(install)
        )
    }

    /// What the writer's connections are named after (``PostgresLog/applicationName(_:)``).
    static func role(_ install: String?) -> String {
        ["recorder", install].compactMap { $0 }.joined(separator: " ")
    }

    // MARK: - RecordingLog

    func beginSession<State: Encodable>(
        app: AppIdentity, codec: any PayloadCodec, initialState: State, info: String?, shapes: SessionShapes, at date: Date
    ) throws(EventLogError) -> LogSession {
        try newSession(app: app, codec: codec, state: initialState, what: "initial state", info: info, shapes: shapes, at: date) { _, _ in }
    }

    /// Sends each part of the batch as the writer encodes it: the store copies one part while
    /// the writer encodes the next (``BatchRows``), where it took the whole batch's encoding
    /// before its first statement.
    func write(session: LogSession, events: Int, _ encode: LogWrite.Encoding) throws(EventLogError) -> ClosedRange<Int64>? {
        let codec = try codec(for: session)
        let rows = BatchRows()
        // The seqs the batch took, known before its COMMIT: what to look for when the answer to
        // the COMMIT never came.
        let taken = Mutex<(seqs: ClosedRange<Int64>?, lostBackend: Int32?)>((nil, nil))
        let sending: SynchronousWait.Pending<ClosedRange<Int64>?> = start { [self] store in
            defer { rows.release() }
            return try await send(rows, events: events, session: session.id, into: store, taken: taken)
        }
        do {
            try encode(codec) { part in rows.send(part) }
            rows.finish()
        } catch {
            rows.finish(throwing: error)
            _ = try? result(of: sending)
            if let error = error as? EventLogError { throw error }
            throw .failed(path: path, reason: "\(error)")
        }
        do {
            return try result(of: sending)
        } catch {
            guard case let (seqs?, backend?) = taken.withLock({ $0 }) else { throw error }
            guard let stored = try? settle(seqs, of: session.id, lostBackend: backend), stored else { throw error }
            return seqs
        }
    }

    /// Writes the batch `rows` brings in one transaction. The call sites and case paths of its
    /// first part are found or added before it, outside it; those of later parts are expected
    /// to be known by then (a recorder's come back batch after batch). A later part naming one
    /// that is not rolls the transaction back, and the batch is written again whole, its ids
    /// found first.
    private func send(
        _ rows: BatchRows, events: Int, session: Int64, into store: PostgresLog, taken: borrowing Mutex<(seqs: ClosedRange<Int64>?, lostBackend: Int32?)>
    ) async throws -> ClosedRange<Int64>? {
        var first: [LogWrite] = []
        while first.isEmpty {
            guard let part = try await rows.next() else { return nil }
            first = part
        }
        var ids = try await internIDs(first, in: store)
        var attempt = (rows: rows, first: first)
        while true {
            do {
                return try await store.transaction {
                    let seqs = try await Self.insert(attempt.rows, startingWith: attempt.first, events: events, session: session, ids: ids, into: store)
                    taken.withLock { $0.seqs = seqs }
                    return seqs
                }
            } catch is UnknownIDs {
                var parts = rows.taken
                while let part = try await rows.next() { parts.append(part) }
                ids = try await internIDs(parts.flatMap { $0 }, in: store)
                attempt = (BatchRows(whole: parts), [])
            } catch let lost as AmbiguousCommit {
                taken.withLock { $0.lostBackend = store.backendPID.load(ordering: .acquiring) }
                throw lost.underlying
            }
        }
    }

    /// Whether the batch that took `seqs` is in the store, now that its `COMMIT`'s answer was
    /// lost: asked on a connection opened anew, once the server process that ran the batch is
    /// gone. (A backend that was only stopped, not cut off, still holds the COMMIT it read, and
    /// commits it when it runs again: it is told to go, and the look waits until it has, at
    /// most the query timeout.) The batch is whole in the store or not at all, being one
    /// transaction.
    ///
    /// A server that cannot be reached yet (restarting: the commonest way to lose a COMMIT's
    /// answer) is asked again every quarter of a second for up to the query timeout; the
    /// writer waits meanwhile, not the app (its dispatches are bounded by the stall limit).
    /// Throws when it still cannot be known: the batch then counts as lost, and may yet be in
    /// the store.
    private func settle(_ seqs: ClosedRange<Int64>, of session: Int64, lostBackend backend: Int32) throws(EventLogError) -> Bool {
        let clock = ContinuousClock()
        let start = clock.now
        while true {
            do {
                return try look(for: seqs, of: session, lostBackend: backend)
            } catch {
                guard clock.now - start < queryTimeout else { throw error }
                Thread.sleep(forTimeInterval: 0.25)
            }
        }
    }

    /// One attempt of ``settle(_:of:lostBackend:)``.
    private func look(for seqs: ClosedRange<Int64>, of session: Int64, lostBackend backend: Int32) throws(EventLogError) -> Bool {
        let timeout = queryTimeout, install = install
        return try run { store in
            if backend != 0 {
                // Only the writer's own process, by its name: after a server restart the
                // number may belong to another connection by now.
                let name = PostgresLog.applicationName(Self.role(install))
                _ = try await store.rows("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = \(backend) AND application_name = \(name)")
                let clock = ContinuousClock()
                let start = clock.now
                while try await store.single(Int64.self, "SELECT count(*) FROM pg_stat_activity WHERE pid = \(backend) AND application_name = \(name)") > 0 {
                    guard clock.now - start < timeout else {
                        throw EventLogError.failed(path: store.location.description, reason: "the server process of a lost connection did not end")
                    }
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
            let stored = try await store.single(
                Int64.self, "SELECT count(*) FROM rewind.events WHERE session_id = \(session) AND seq BETWEEN \(seqs.lowerBound) AND \(seqs.upperBound)"
            )
            return stored == Int64(seqs.count)
        }
    }

    func recordGap<State: Encodable>(
        _ gap: LogGap, resumingWith app: AppIdentity, codec: any PayloadCodec, state: State, info: String?, shapes: SessionShapes, at date: Date
    ) throws(EventLogError) -> LogSession {
        try newSession(app: app, codec: codec, state: state, what: "state snapshot", info: info, shapes: shapes, at: date) { store, id in
            var gap = gap
            gap.resumedSession = id
            try await Self.insertGap(gap, into: store)
            _ = try await store.rows("""
                UPDATE rewind.sessions SET ending = 'resumed', end_seq = coalesce(last_seq, base_seq), ended_at = \(date.timeIntervalSince1970)
                WHERE id = \(gap.session) AND ending IS NULL
                """)
        }
    }

    func recordGap(_ gap: LogGap) throws(EventLogError) {
        try run { store in try await Self.insertGap(gap, into: store) }
    }

    /// Records that the recorder closed session `id`, at its last seq (the store's numbers,
    /// as its install's log reads them).
    func endSession(_ id: Int64, as kind: SessionEnding.Kind, at date: Date) throws(EventLogError) {
        try run { store in
            _ = try await store.rows("""
                UPDATE rewind.sessions SET ending = \(kind.rawValue), end_seq = coalesce(last_seq, base_seq), ended_at = \(date.timeIntervalSince1970)
                WHERE id = \(id) AND ending IS NULL
                """)
        }
    }

    /// A transaction here costs round trips (`BEGIN`, the seqs, `COMMIT`) whatever it holds:
    /// a periodic snapshot goes in with the events before it.
    var writesSnapshotsWithEvents: Bool { true }
    /// A store keeps states as the codec wrote them (not deflated by Rewind).
    var deflatesSnapshots: Bool { false }

    /// The server copies one part of a batch while the writer encodes the next (``write(session:events:_:)``).
    var sendsRowsInParts: Bool { true }

    /// A store's retention is its own (partitions, `DELETE`): nothing to do here.
    func trim(to retention: Retention, now: Date, removingAtMost limit: Int) throws(EventLogError) -> (removed: Int, isComplete: Bool) { (0, true) }

    func recorderFinished() {
        guard let store = store.withLock({ store in defer { store = nil }; return store }) else { return }
        try? wait.run { await store.close() }
    }

    // MARK: - Writing

    /// Begins a session from `state`, and runs `alsoInTransaction` with its number in the same
    /// transaction.
    private func newSession<State: Encodable>(
        app: AppIdentity, codec: any PayloadCodec, state: State, what: String, info: String?, shapes: SessionShapes, at date: Date,
        alsoInTransaction: @escaping @Sendable (PostgresLog, Int64) async throws -> Void
    ) throws(EventLogError) -> LogSession {
        let encoded = try encode(state, with: codec, what: what)
        let install = install, started = date.timeIntervalSince1970, codecName = codec.name
        let (id, base) = try run { store in
            let actionShape = try await store.shapeID(shapes.action), stateShape = try await store.shapeID(shapes.state)
            return try await store.transaction {
                let created = try await Self.insertSession(
                    store, install: install, app: app, codec: codecName, started: started, info: info,
                    shapes: (actionShape, stateShape), state: encoded
                )
                try await alsoInTransaction(store, created.id)
                return created
            }
        }
        return LogSession(
            id: id, app: app, codec: codec.name, startedAt: started, baseSeq: base, info: info, eventCount: 0, seqRange: nil,
            encryption: nil, actionFingerprint: shapes.action?.fingerprint, stateFingerprint: shapes.state?.fingerprint
        )
    }

    /// The codec `session` records with: text payloads only (see `RecordingDestination.postgres`).
    private func codec(for session: LogSession) throws(EventLogError) -> any PayloadCodec {
        guard let codec = PayloadCodecs.standard[session.codec], codec.isText else {
            throw .failed(path: path, reason: "session \(session.id) records with the \(session.codec) codec; a PostgreSQL store records JSON (the default codec) for now")
        }
        return codec
    }

    private func encode<State: Encodable>(_ state: State, with codec: any PayloadCodec, what: String) throws(EventLogError) -> Data {
        guard codec.isText else {
            throw .failed(path: path, reason: "the \(codec.name) codec cannot record into a PostgreSQL store yet: record with JSON, the default codec")
        }
        do {
            return try codec.encode(state)
        } catch {
            throw .encodingFailed(path: path, seq: nil, actionCase: what, reason: "\(error)")
        }
    }

    /// Inserts a session and its first snapshot at its base seq, taken from the store's sequence.
    private static func insertSession(
        _ store: PostgresLog, install: String?, app: AppIdentity, codec: String, started: Double, info: String?,
        shapes: (action: Int64?, state: Int64?), state: Data
    ) async throws -> (id: Int64, base: Int64) {
        let rows = try await store.rows("""
            INSERT INTO rewind.sessions (install_id, app_id, app_version, action_schema_version, state_schema_version, codec, started_at, base_seq,
                                         info, action_shape_id, state_shape_id)
            VALUES (\(install), \(app.id), \(app.version), \(app.actionSchemaVersion), \(app.stateSchemaVersion), \(codec), \(started),
                    nextval('rewind.seqs'), \(info), \(shapes.action), \(shapes.state))
            RETURNING id, base_seq
            """)
        guard let row = try rows.first?.decode((Int64, Int64).self) else {
            throw EventLogError.failed(path: store.location.description, reason: "a new session was not given a number")
        }
        _ = try await store.rows("""
            INSERT INTO rewind.snapshots (session_id, seq, time, kind, state) VALUES (\(row.0), \(row.1), \(started), 'initial', \(state))
            """)
        return row
    }

    private static func insertGap(_ gap: LogGap, into store: PostgresLog) async throws {
        _ = try await store.rows("""
            INSERT INTO rewind.gaps (session_id, after_seq, lost, cases, reason, first_time, last_time, resumed_session_id)
            VALUES (\(gap.session), \(gap.afterSeq), \(Int64(gap.lost)), \(try PostgresLog.casesJSON(gap)), \(gap.reason),
                    \(gap.firstTime), \(gap.lastTime), \(gap.resumedSession))
            """)
    }

    /// The ids of the batch's call sites and case paths, from the cache or the store.
    private func internIDs(_ writes: [LogWrite], in store: PostgresLog) async throws -> ([SourceKey: Int64], [String: Int64]) {
        var (sources, actions) = ids.withLock { $0 }
        for case let .event(event) in writes {
            if sources[event.source] == nil {
                let key = event.source
                sources[key] = try await store.sourceID(
                    file: key.file, function: key.function, line: Int64(clamping: key.line), column: Int64(clamping: key.column), origin: key.origin
                )
            }
            if actions[event.actionCase] == nil { actions[event.actionCase] = try await store.actionID(event.actionCase) }
        }
        ids.withLock { [sources, actions] in $0 = (sources, actions) }
        return (sources, actions)
    }

    /// A part of a batch names a call site or case path whose id is not known yet.
    private struct UnknownIDs: Error {}

    /// Where a batch's events stand: the seqs claimed and not yet given, and those given.
    private struct Placing {
        var seqs: ArraySlice<Int64>
        /// Where the session ended before the batch.
        var ended: Int64
        /// Every seq given in this write, in order: what a link to an earlier event of the
        /// write resolves by (the store's seqs need not follow each other when writers share it).
        var given: [Int64] = []

        /// The seq of an event before a snapshot: the state after it.
        var last: Int64 { given.last ?? ended }

        /// The next seq, and the distances to the event's cause and root.
        mutating func place(_ event: LogWrite.Event, path: String) throws -> (seq: Int64, cause: Int64?, root: Int64?) {
            guard let seq = seqs.popFirst() else {
                throw EventLogError.failed(path: path, reason: "the batch held more events than the store gave seqs for")
            }
            given.append(seq)
            return (seq, distance(event.cause, from: seq), distance(event.root, from: seq))
        }

        private func distance(_ link: EventLink?, from seq: Int64) -> Int64? {
            switch link {
            case nil: nil
            // `given` holds this event's seq last: `.earlier(0)` is the event itself.
            case let .earlier(back)?: back < given.count ? seq - given[given.count - 1 - back] : nil
            case let .seq(linked)?: linked <= seq ? seq - linked : nil
            }
        }
    }

    /// Inserts the batch inside the caller's transaction as its parts arrive (`first`, then
    /// those `rows` brings): events with seqs from the store's sequence (taken in order, so the
    /// session's order is the batch's), in one copy until a snapshot or a pause the writer
    /// announces (an empty part: a snapshot is being encoded); snapshots at the seq of the
    /// event before them; and the session's new bounds. A copy's deadline (the query timeout)
    /// counts the writer's encoding of the parts it takes, a few hundred events each; the slow
    /// item, a snapshot, is never waited for inside a copy.
    ///
    /// - Throws: ``UnknownIDs`` when a part names a call site or case path not in `ids`.
    private static func insert(
        _ rows: BatchRows, startingWith first: [LogWrite], events count: Int, session: Int64,
        ids: (sources: [SourceKey: Int64], actions: [String: Int64]), into store: PostgresLog
    ) async throws -> ClosedRange<Int64>? {
        let claimed = try await claim(count, session: session, in: store)
        let path = store.location.description
        let placing = Mutex(Placing(seqs: claimed.seqs[...], ended: claimed.ended))
        // Rows received and not written yet.
        var hand = first[...]
        var ended = false
        while !ended {
            if hand.isEmpty {
                guard let part = try await rows.next() else { break }
                hand = part[...]
                continue
            }
            if case let .snapshot(time, state, placed, _)? = hand.first {
                hand = hand.dropFirst()
                let seq = placed ?? placing.withLock { $0.last }
                _ = try await store.rows("""
                    INSERT INTO rewind.snapshots (session_id, seq, time, kind, state) VALUES (\(session), \(seq), \(time), 'periodic', \(state))
                    ON CONFLICT DO NOTHING
                    """)
                continue
            }
            // Events: this copy takes them from the hand, then from each part as it comes.
            let left = Mutex<(hand: ArraySlice<LogWrite>, ended: Bool, unknown: Bool)>((hand, false, false))
            try await store.copy(writing: { write in
                var (hand, ended, unknown) = left.withLock { $0 }
                var place = placing.withLock { $0 }
                defer {
                    left.withLock { $0 = (hand, ended, unknown) }
                    placing.withLock { $0 = place }
                }
                while true {
                    var chunk = EventCopy(reservingBytes: 160 * hand.count)
                    var copied = 0
                    for row in hand {
                        guard case let .event(event) = row else { break }
                        guard let source = ids.sources[event.source], let action = ids.actions[event.actionCase] else {
                            unknown = true
                            return
                        }
                        let (seq, cause, root) = try place.place(event, path: path)
                        chunk.append(
                            session: session, seq: seq, originSeq: nil, time: event.time, action: action, payload: event.payload,
                            source: source, info: event.info, redaction: event.redaction, cause: cause, root: root
                        )
                        copied += 1
                    }
                    hand = hand.dropFirst(copied)
                    if copied > 0 { try await write(chunk.buffer) }
                    // A snapshot next: this copy ends before it.
                    guard hand.isEmpty else { return }
                    guard let part = try await rows.next() else {
                        ended = true
                        return
                    }
                    // A pause: the copy ends rather than wait through it.
                    guard !part.isEmpty else { return }
                    hand = part[...]
                }
            }, letGo: {
                rows.release()
            })
            let after = left.withLock { $0 }
            guard !after.unknown else { throw UnknownIDs() }
            (hand, ended) = (after.hand, after.ended)
        }
        let given = placing.withLock { $0.given }
        guard given.count == count else {
            throw EventLogError.failed(path: path, reason: "the batch held \(given.count) events where its writer counted \(count)")
        }
        guard let low = given.first, let high = given.last else { return nil }
        return low...high
    }

    /// A batch's bookkeeping in one round trip: `count` seqs from the store's sequence, in
    /// order (one array, not a row each: reading a row per seq was about a tenth of a push's
    /// client samples); the session's bounds and count moved over them; and the seq the session
    /// ended at before them (where a snapshot that comes before the batch's first event is
    /// taken). All parts of one statement see the session's row as it was before its `UPDATE`.
    /// (Three round trips before: the seqs, that seq when a snapshot came first, the `UPDATE`
    /// last.)
    private static func claim(_ count: Int, session: Int64, in store: PostgresLog) async throws -> (seqs: [Int64], ended: Int64) {
        let rows = try await store.rows("""
            WITH taken AS (SELECT array_agg(nextval('rewind.seqs')) AS seqs FROM generate_series(1, \(Int64(count)))),
            moved AS (
                UPDATE rewind.sessions SET
                    first_seq = coalesce(first_seq, (SELECT min(s) FROM taken, unnest(taken.seqs) AS s)),
                    last_seq = (SELECT max(s) FROM taken, unnest(taken.seqs) AS s),
                    event_count = event_count + \(Int64(count))
                WHERE id = \(session) AND \(Int64(count)) > 0
            )
            SELECT taken.seqs, coalesce(s.last_seq, s.base_seq) FROM taken, rewind.sessions AS s WHERE s.id = \(session)
            """)
        guard let row = rows.first else {
            throw EventLogError.failed(path: store.location.description, reason: "session \(session) is not in the store")
        }
        let (taken, ended) = try row.decode(([Int64]?, Int64).self)
        let seqs = (taken ?? []).sorted()
        guard seqs.count == count else {
            throw EventLogError.failed(path: store.location.description, reason: "the store gave \(seqs.count) seqs of the \(count) asked for")
        }
        return (seqs, ended)
    }

    /// Runs `body` against the store, connecting again first when the connection was lost; a
    /// failure that closed it leaves it to be replaced on the next call.
    private func run<T: Sendable>(_ body: @escaping @Sendable (PostgresLog) async throws -> T) throws(EventLogError) -> T {
        try result(of: start(body))
    }

    /// Starts `body` as ``run(_:)`` runs it, and returns at once.
    private func start<T: Sendable>(_ body: @escaping @Sendable (PostgresLog) async throws -> T) -> SynchronousWait.Pending<T> {
        let location = location, install = install, queryTimeout = queryTimeout
        let current = store.withLock { $0 }
        return wait.start { [self] in
            let log: PostgresLog
            if let current, !current.connection.isClosed {
                log = current
            } else {
                if let current { await current.close() }
                log = try await Self.connect(location, install: install, queryTimeout: queryTimeout)
                self.store.withLock { $0 = log }
            }
            return try await body(log)
        }
    }

    /// What work ``start(_:)`` began ends with, once it ends.
    private func result<T: Sendable>(of pending: SynchronousWait.Pending<T>) throws(EventLogError) -> T {
        do {
            return try pending.wait()
        } catch let error as EventLogError {
            throw error
        } catch {
            throw PostgresFailure.describe(error, at: location, doing: "record")
        }
    }
}
