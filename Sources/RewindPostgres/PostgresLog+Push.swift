import Foundation
import PostgresNIO
import Rewind
public import RewindLog

extension PostgresLog {
    /// How far a push has got.
    public struct PushProgress: Sendable, Hashable {
        /// The session being pushed, by its number in the log.
        public var session: Int64
        /// Sessions finished, of all.
        public var sessionsDone: Int
        public var sessions: Int
        /// Events in the store from this log so far (pushed now or before), of all the log holds.
        public var events: Int64
        public var eventsTotal: Int64
    }

    /// What a push did.
    public struct PushReport: Sendable, Hashable, Codable {
        /// Sessions in the log.
        public var sessions: Int
        /// Of them, sessions the store did not have yet.
        public var newSessions: Int
        /// Events added now.
        public var events: Int64
        /// Events the store had already (an earlier push, or one cut short).
        public var alreadyThere: Int64
        /// Snapshots added now.
        public var snapshots: Int
        /// Recorded gaps added now.
        public var gaps: Int
    }

    /// Copies `log`'s sessions into the store — their events, snapshots, gaps, type shapes and
    /// binary symbols, byte for byte — each session under a new number, its events under new
    /// seqs in the same order.
    ///
    /// Pushing is idempotent and resumable: the store knows each session by the log's identity
    /// and the session's number there, and each event by its seq there. Pushing the same log
    /// again adds only what the log gained since; a push cut short (killed, the server
    /// restarted, the network gone) loses nothing and leaves nothing half-written — each batch
    /// of events goes in one transaction with the session's bounds and the snapshots it reaches,
    /// a new session's first batch in the one that adds the session (a fleet's short sessions
    /// cost one commit each) — and pushing again finishes it. Two processes pushing the same log
    /// at once add each event once.
    ///
    /// - Parameters:
    ///   - log: The log to push: a file, which must have an identity (schema 9, or opened for
    ///     writing once), or any other reader of a log with one — a log pushed into another
    ///     store (``PostgresLogReader``) moves between stores without a file.
    ///   - install: The install or device it came from, kept with each session (for fleet
    ///     queries); the log's identity when not given.
    ///   - batchSize: Events per transaction (1–10,000). A batch also ends once its payloads
    ///     reach ``pushBatchBytes``, so that large payloads do not hold much memory.
    ///   - progress: Called after each batch.
    public func push(
        _ log: any LogReader,
        install: String? = nil,
        batchSize: Int = defaultPushBatchSize,
        progress: (@Sendable (PushProgress) -> Void)? = nil
    ) async throws(EventLogError) -> PushReport {
        try await push(log, install: install, batchSize: batchSize, progress: progress, stoppingAfter: nil)
    }

    /// Events per transaction of a push, unless told otherwise. Each transaction costs a commit
    /// (its sync) and a few round trips: at 1,000 events that overhead was about a quarter of a
    /// push's time (the `postgres` bench workload); at 10,000 a push cut short redoes at most a
    /// fraction of a second's work.
    public static let defaultPushBatchSize = 10_000

    /// The payload bytes that end a push's batch before its `batchSize` (8 MiB): with the next
    /// batch and the next new session's first batch read while the store takes this one, and
    /// the copy's text twice a payload's size, a push holds a few tens of megabytes whatever the
    /// log's payloads.
    public static let pushBatchBytes = 8 << 20

    /// `push`, stopping with an error after `stoppingAfter` batches: a push cut short, for tests.
    func push(
        _ log: any LogReader,
        install: String?,
        batchSize: Int,
        progress: (@Sendable (PushProgress) -> Void)?,
        stoppingAfter: Int?
    ) async throws(EventLogError) -> PushReport {
        guard (1...10_000).contains(batchSize) else {
            throw .failed(path: location.description, reason: "a batch of \(batchSize) events: give 1 to 10,000")
        }
        guard mode == .readWrite else { throw .readOnly(path: location.description, detail: "the store was opened read-only") }
        guard let origin = try log.identity() else {
            // A store's own log has none; any other reader is a file older than identities.
            guard !(log is PostgresLogReader) else {
                throw .failed(path: log.path, reason: "sessions recorded into a store have no log identity to push them by: pull them into a file (`rewind pull --install`) and push that")
            }
            throw .readOnly(path: log.path, detail: "the log predates log identities (schema 9) and was opened read-only: open it for writing once, so that pushes can recognise it")
        }
        var pusher = Pusher(store: self, log: log, origin: origin, install: install ?? origin.uuidString.lowercased(), batchSize: batchSize)
        pusher.stoppingAfter = stoppingAfter
        do {
            return try await pusher.run(progress: progress)
        } catch let error as EventLogError {
            throw error
        } catch {
            throw PostgresFailure.describe(error, at: location, doing: "push \(log.path)")
        }
    }
}

/// One push: what it has interned so far, and the walk over the log.
private struct Pusher {
    let store: PostgresLog
    let log: any LogReader
    let origin: UUID
    let install: String
    let batchSize: Int
    var stoppingAfter: Int?
    private var batches = 0
    private var sourceIDs: [ActionSource: Int64] = [:]
    private var actionIDs: [String: Int64] = [:]
    /// Type shapes by their stored text: a log's sessions mostly share two.
    private var shapeIDs: [String: Int64] = [:]
    private var report = PostgresLog.PushReport(sessions: 0, newSessions: 0, events: 0, alreadyThere: 0, snapshots: 0, gaps: 0)

    init(store: PostgresLog, log: any LogReader, origin: UUID, install: String, batchSize: Int) {
        self.store = store
        self.log = log
        self.origin = origin
        self.install = install
        self.batchSize = batchSize
    }

    mutating func run(progress: (@Sendable (PostgresLog.PushProgress) -> Void)?) async throws -> PostgresLog.PushReport {
        let sessions = try log.sessions()
        report.sessions = sessions.count
        let total = sessions.reduce(0) { $0 + $1.eventCount }
        let space = try await symbolSpace()
        let known = try await knownSessions()
        var done: Int64 = 0
        var numbers: [Int64: (id: Int64, base: Int64)] = [:]
        // What a new session needs from the log is read while the store takes the session
        // before: for a log of many short sessions (a fleet's), that reading was a quarter of
        // each session's time.
        let log = log, batchSize = batchSize
        func prepared(_ index: Int) async throws -> NewSession? {
            guard index < sessions.count, known[sessions[index].id] == nil else { return nil }
            return try await Self.newSession(sessions[index], of: log, batchSize: batchSize)
        }
        var next = try await prepared(0)
        for (index, session) in sessions.enumerated() {
            let new = next
            async let following = prepared(index + 1)
            let (target, first) = try await pushSession(session, known: known[session.id], new: new, space: space)
            numbers[session.id] = target
            done += try await pushEvents(of: session, into: target, after: first) { pushed in
                progress?(.init(session: session.id, sessionsDone: index, sessions: sessions.count, events: done + pushed, eventsTotal: total))
            }
            progress?(.init(session: session.id, sessionsDone: index + 1, sessions: sessions.count, events: done, eventsTotal: total))
            next = try await following
        }
        for gap in try log.gaps() {
            guard let target = numbers[gap.session] else { continue }
            try await pushGap(gap, into: target, resumed: gap.resumedSession.flatMap { numbers[$0]?.id })
        }
        return report
    }

    // MARK: - Sessions

    /// The log's symbol space in the store, when its payloads use symbols.
    private func symbolSpace() async throws -> Int64? {
        let symbols = try log.storedSymbols()
        guard !symbols.isEmpty else { return nil }
        _ = try await store.rows("INSERT INTO rewind.symbol_spaces (origin) VALUES (\(origin)) ON CONFLICT (origin) DO NOTHING")
        let space = try await single(Int64.self, "SELECT id FROM rewind.symbol_spaces WHERE origin = \(origin)")
        for part in stride(from: 0, to: symbols.count, by: 1_000) {
            let chunk = symbols[part..<min(part + 1_000, symbols.count)]
            var bindings = PostgresBindings()
            var rows: [String] = []
            for symbol in chunk {
                bindings.append(space)
                bindings.append(symbol.id)
                bindings.append(symbol.name)
                let first = bindings.count - 2
                rows.append("($\(first), $\(first + 1), $\(first + 2))")
            }
            _ = try await store.rows(PostgresQuery(
                unsafeSQL: "INSERT INTO rewind.symbols (space_id, id, name) VALUES \(rows.joined(separator: ", ")) ON CONFLICT DO NOTHING",
                binds: bindings
            ))
        }
        return space
    }

    /// The store's sessions from this log, by their number in it, asked once a push: a session
    /// another pusher adds meanwhile is found when adding it finds it there.
    private func knownSessions() async throws -> [Int64: (id: Int64, base: Int64)] {
        var known: [Int64: (id: Int64, base: Int64)] = [:]
        for row in try await store.rows("SELECT origin_session, id, base_seq FROM rewind.sessions WHERE origin = \(origin)") {
            let (number, id, base) = try row.decode((Int64, Int64, Int64).self)
            known[number] = (id, base)
        }
        return known
    }

    /// What adding a session takes from the log: its shapes, its initial snapshot and its
    /// first batch of events.
    struct NewSession: Sendable {
        var shapes: SessionShapes
        var initial: LoggedSnapshot?
        var batch: [LoggedEvent]
    }

    private static func newSession(_ session: LogSession, of log: any LogReader, batchSize: Int) async throws -> NewSession {
        NewSession(
            shapes: try log.shapes(session: session.id),
            initial: try log.snapshot(session: session.id, atOrBefore: session.baseSeq),
            batch: try await firstBatch(of: session, in: log, batchSize: batchSize)
        )
    }

    /// The session's number and base seq in the store, adding it when it is not there yet — with
    /// its initial snapshot and its first batch of events, in one transaction: a log of many
    /// short sessions (a fleet's) then costs one commit a session, not two.
    ///
    /// Returns where its events stand: for a session this push added, what its first batch
    /// added and the last seq it reached (whatever the store has of it, then: a second pusher of
    /// the same log waits on the new row's lock until the commit); `nil` for a session found in
    /// the store, whose events are asked for.
    ///
    /// - Parameters:
    ///   - known: Where the store had it when the push began.
    ///   - new: What adding it takes, read from the log ahead (read here when `nil`).
    private mutating func pushSession(
        _ session: LogSession, known: (id: Int64, base: Int64)?, new: NewSession?, space: Int64?
    ) async throws -> (target: (id: Int64, base: Int64), first: (added: Int64, through: Int64)?) {
        if let found = known {
            try await verify(session, as: found)
            try await pushEnding(of: session, into: found)
            return (found, nil)
        }
        let new = if let new { new } else { try await Self.newSession(session, of: log, batchSize: batchSize) }
        let actionShape = try await shapeID(new.shapes.action), stateShape = try await shapeID(new.shapes.state)
        let initial = new.initial, batch = new.batch
        let ids = try await internedIDs(of: batch)
        let store = store, origin = origin, install = install
        let created = try await store.transaction { () async throws -> (target: (id: Int64, base: Int64), added: Int64, snapshots: Int)? in
            let app = session.app
            let key = session.encryption
            let created = try await store.rows("""
                INSERT INTO rewind.sessions (origin, origin_session, install_id, app_id, app_version, action_schema_version, state_schema_version,
                                             codec, symbol_space_id, started_at, base_seq, info, key_id, key_salt, key_check,
                                             action_shape_id, state_shape_id, ending, end_seq, ended_at, crash)
                VALUES (\(origin), \(session.id), \(install), \(app.id), \(app.version), \(app.actionSchemaVersion), \(app.stateSchemaVersion),
                        \(session.codec), \(space), \(session.startedAt), nextval('rewind.seqs'), \(session.info), \(key?.keyID), \(key?.salt), \(key?.check),
                        \(actionShape), \(stateShape), \(session.ending?.kind.rawValue), \(session.ending?.seq), \(session.ending?.time), \(session.ending?.storedMarkText))
                ON CONFLICT (origin, origin_session) DO NOTHING
                RETURNING id, base_seq, (SELECT array_agg(nextval('rewind.seqs')) FROM generate_series(1, \(batch.count)))
                """).first.map { try $0.decode((Int64, Int64, [Int64]?).self) }
            // Another pusher of the same log got there first: its transaction has it all.
            guard let (id, base, seqs) = created else { return nil }
            if let initial {
                _ = try await store.rows("""
                    INSERT INTO rewind.snapshots (session_id, seq, origin_seq, time, kind, state)
                    VALUES (\(id), \(base), \(initial.seq), \(initial.time), \(initial.kind), \(initial.state))
                    ON CONFLICT DO NOTHING
                    """)
            }
            guard let through = batch.last?.seq else { return ((id, base), 0, 0) }
            // The row is this transaction's, and holds no events yet: no lock to take, nothing
            // to leave out, and the seqs came with it.
            let (added, snapshots) = try await copyBatch(
                batch, ids: ids, of: session, into: (id, base), after: session.baseSeq, through: through, fresh: seqs ?? []
            )
            return ((id, base), added, snapshots)
        }
        if let created {
            report.newSessions += 1
            if initial != nil { report.snapshots += 1 }
            report.events += created.added
            report.snapshots += created.snapshots
            guard let through = batch.last?.seq else { return (created.target, (0, session.baseSeq)) }
            try countBatch()
            return (created.target, (created.added, through))
        }
        guard let found = try await existing(session) else {
            throw EventLogError.failed(path: store.location.description, reason: "session \(session.id) of \(log.path) was added but cannot be found")
        }
        return (found, nil)
    }

    /// A session's first batch of events, for the transaction that adds it.
    private static func firstBatch(of session: LogSession, in log: any LogReader, batchSize: Int) async throws -> [LoggedEvent] {
        guard let last = session.seqRange?.upperBound, session.baseSeq < last else { return [] }
        return try await batch(of: log, EventFilter(seqs: (session.baseSeq + 1)...last, session: session.id), after: session.baseSeq, count: batchSize)
    }

    /// Counts a committed batch; stops the push after `stoppingAfter` of them (a test's cut).
    private mutating func countBatch() throws {
        batches += 1
        if let stop = stoppingAfter, batches >= stop {
            throw EventLogError.failed(path: store.location.description, reason: "stopped after \(batches) batches (a push cut short)")
        }
    }

    /// The store's id of `shape`, interned once per push.
    private mutating func shapeID(_ shape: TypeShape?) async throws -> Int64? {
        guard let shape else { return nil }
        let text = try shape.storedJSON()
        if let known = shapeIDs[text] { return known }
        let id = try await store.shapeID(shape)
        shapeIDs[text] = id
        return id
    }

    /// How the session ended, when the log says so now and the store does not yet (it was live
    /// when it was pushed before).
    private func pushEnding(of session: LogSession, into target: (id: Int64, base: Int64)) async throws {
        guard let ending = session.ending else { return }
        _ = try await store.rows("""
            UPDATE rewind.sessions SET ending = \(ending.kind.rawValue), end_seq = \(ending.seq), ended_at = \(ending.time),
                                      crash = \(ending.storedMarkText)
            WHERE id = \(target.id) AND ending IS NULL
            """)
    }

    /// A session the store has from this log must be this session, with the events it has of
    /// it unchanged. A copy of the log restored or recorded into in place keeps the identity
    /// (a copy in another file gets its own: `EventLog.identity()`), and may number another
    /// history alike: adding its events would mix two histories in one session, so the push is
    /// refused, naming the first event that differs. What is compared: the session's start,
    /// app and codec, then the last event the store has of it (its seq, time, case and payload,
    /// byte for byte) unless retention has trimmed it from the log; on a difference, every
    /// event, to name the first.
    private func verify(_ session: LogSession, as target: (id: Int64, base: Int64)) async throws {
        let header = try await store.rows("SELECT started_at, app_id, codec FROM rewind.sessions WHERE id = \(target.id)")
            .first.map { try $0.decode((Double, String, String).self) }
        if let (startedAt, app, codec) = header, startedAt != session.startedAt || app != session.app.id || codec != session.codec {
            throw diverged(session, """
                the store's session \(session.id) from this log began at \(startedAt) (\(app), \(codec)), this one at \(session.startedAt) \
                (\(session.app.id), \(session.codec))
                """)
        }
        guard let last = try await single(Int64?.self, "SELECT max(origin_seq) FROM rewind.events WHERE session_id = \(target.id)"),
              let first = session.seqRange?.lowerBound, first <= last
        else { return }
        let stored = try await storedEvents(of: target, after: last - 1, count: 1).first
        let mine = try? log.event(at: last)
        if let stored, let mine, mine.session == session.id, stored.same(as: mine) { return }
        // Something differs: walk both, to name the first event that does.
        var after = Int64.min
        var cursor = log.events(EventFilter(session: session.id), pageSize: 1_000)
        while true {
            let page = try await storedEvents(of: target, after: after, count: 1_000)
            for event in page {
                guard let mine = try cursor.next() else {
                    throw diverged(session, "the store has event \(event.seq) of it, which this log does not")
                }
                guard mine.seq == event.seq else {
                    throw diverged(session, "event \(min(mine.seq, event.seq)) is in \(mine.seq < event.seq ? "this log" : "the store") only")
                }
                if let difference = event.difference(from: mine) { throw diverged(session, "event \(event.seq) differs in its \(difference)") }
                after = event.seq
            }
            guard page.count == 1_000 else { break }
        }
        throw diverged(session, "the last event the store has of it, \(last), differs")
    }

    /// The error for a log whose session `session` is not the one the store has under its number.
    private func diverged(_ session: LogSession, _ detail: String) -> EventLogError {
        .failed(path: log.path, reason: """
            this log has diverged from what was pushed from it before (a copy restored or recorded into in place?): \(detail). \
            Nothing of session \(session.id) was pushed; push a copy of the log made with `rewind export` and `rewind import`, \
            which is a log of its own once recorded into
            """)
    }

    /// An event as the store has it from a log, enough to tell whether the log still has it.
    private struct StoredEvent {
        var seq: Int64
        var time: Double
        var actionCase: String
        var payload: Data?

        /// What of `event` differs from this one: `nil` when nothing does.
        func difference(from event: LoggedEvent) -> String? {
            if event.actionCase != actionCase { return "case (\(actionCase) in the store, \(event.actionCase) here)" }
            if event.time != time { return "time" }
            if event.payload != payload { return "payload" }
            return nil
        }

        func same(as event: LoggedEvent) -> Bool {
            event.seq == seq && difference(from: event) == nil
        }
    }

    /// The store's events of session `target`, by the log's seqs, after `after`.
    private func storedEvents(of target: (id: Int64, base: Int64), after: Int64, count: Int) async throws -> [StoredEvent] {
        try await store.rows("""
            SELECT e.origin_seq, e.time, a.name, e.payload FROM rewind.events AS e JOIN rewind.actions AS a ON a.id = e.action_id
            WHERE e.session_id = \(target.id) AND e.origin_seq > \(after) ORDER BY e.origin_seq LIMIT \(count)
            """).map { row in
            let (seq, time, actionCase, payload) = try row.decode((Int64, Double, String, Data?).self)
            return StoredEvent(seq: seq, time: time, actionCase: actionCase, payload: payload)
        }
    }

    private func existing(_ session: LogSession) async throws -> (id: Int64, base: Int64)? {
        try await store.rows("SELECT id, base_seq FROM rewind.sessions WHERE origin = \(origin) AND origin_session = \(session.id)")
            .first.map { try $0.decode((Int64, Int64).self) }
    }

    // MARK: - Events

    /// Pushes the session's events the store lacks, a batch per transaction, with the snapshots
    /// each batch reaches. Returns how many of the session's events the store now has.
    ///
    /// A session this push has just added (`first`: its first batch went with it) goes on from
    /// that batch without asking: a second pusher of the same log may add events meanwhile,
    /// which each batch's transaction sees and leaves out, as it does for a session found in the
    /// store.
    private mutating func pushEvents(
        of session: LogSession, into target: (id: Int64, base: Int64), after first: (added: Int64, through: Int64)?, progress: (Int64) -> Void
    ) async throws -> Int64 {
        // Where an earlier push stopped: its last committed batch's last event.
        var after = first?.through ?? session.baseSeq, there = first?.added ?? 0
        if let first, first.through > session.baseSeq {
            // The batch that went with the session's creation.
            progress(there)
        }
        if first == nil {
            after = try await single(Int64.self, """
                SELECT coalesce(max(origin_seq), \(session.baseSeq)) FROM rewind.events WHERE session_id = \(target.id)
                """)
            there = try await single(Int64.self, "SELECT count(*) FROM rewind.events WHERE session_id = \(target.id)")
            report.alreadyThere += there
        }
        if let last = session.seqRange?.upperBound, after < last {
            let log = log, batchSize = batchSize, filter = EventFilter(seqs: (after + 1)...last, session: session.id)
            var batch = try await Self.batch(of: log, filter, after: after, count: batchSize)
            while let through = batch.last?.seq {
                // The next batch is read from the log while the store takes this one: the two
                // sides of a push overlap, on two cores, as a single `COPY` stream's do.
                async let following = Self.batch(of: log, filter, after: through, count: batchSize)
                there += try await pushBatch(batch, of: session, into: target, after: after, through: through)
                after = through
                progress(there)
                try countBatch()
                batch = try await following
            }
        }
        // Snapshots past the last event (retention's, of a session emptied by it), when the log
        // has any: most sessions have none, and skip a transaction.
        if try log.snapshotIndex(session: session.id).contains(where: { $0.seq > after && $0.seq > session.baseSeq }) {
            let after = after
            let added = try await store.transaction {
                try await insertSnapshots(of: session, into: target, after: after, through: .max)
            }
            report.snapshots += added
        }
        return there
    }

    /// The next batch: the log's events after `after` that `filter` lets through, at most
    /// `count`, ending early once their payloads reach ``PostgresLog/pushBatchBytes``. Read a
    /// small page at a time, so that the byte bound holds to within a page.
    private static func batch(of log: any LogReader, _ filter: EventFilter, after: Int64, count: Int) async throws -> [LoggedEvent] {
        var batch: [LoggedEvent] = [], bytes = 0, after = after
        while batch.count < count, bytes < PostgresLog.pushBatchBytes {
            let asked = min(256, count - batch.count)
            let page = try log.eventPage(filter, after: after, count: asked, newestFirst: false)
            batch += page
            bytes += page.reduce(0) { $0 + ($1.payload?.count ?? 0) }
            guard page.count == asked, let last = page.last?.seq else { break }
            after = last
        }
        return batch
    }

    /// One batch of events, and the snapshots after `after` through its last event, in one
    /// transaction with the session's bounds. Returns how many events were added.
    ///
    /// The events go in by `COPY`, which has no `ON CONFLICT`: so the transaction first locks
    /// the session's row, then asks which of the log's events the store has of it — another
    /// pusher of the same log may have added some meanwhile — and copies only those after. A
    /// log's events reach the store in seq order, a whole batch at a time, so the store has
    /// exactly the log's events up to the greatest it has. (Copying into a staging table, then
    /// inserting from it with `ON CONFLICT`, costs a second write of every row.)
    private mutating func pushBatch(
        _ batch: [LoggedEvent], of session: LogSession, into target: (id: Int64, base: Int64), after: Int64, through: Int64
    ) async throws -> Int64 {
        let ids = try await internedIDs(of: batch)
        let (added, snapshots) = try await store.transaction {
            try await copyBatch(batch, ids: ids, of: session, into: target, after: after, through: through)
        }
        report.events += added
        report.snapshots += snapshots
        return added
    }

    /// The store's ids of each event's call site and case, interned outside the transaction that
    /// copies them: committed ids stay valid whatever the batch does. Each event's ids are looked
    /// up once, here (hashing call sites showed in the client's profile).
    private mutating func internedIDs(of batch: [LoggedEvent]) async throws -> [(source: Int64, action: Int64)] {
        var ids: [(source: Int64, action: Int64)] = []
        ids.reserveCapacity(batch.count)
        for event in batch {
            let source: Int64, action: Int64
            if let known = sourceIDs[event.source] {
                source = known
            } else {
                source = try await sourceID(event.source)
                sourceIDs[event.source] = source
            }
            if let known = actionIDs[event.actionCase] {
                action = known
            } else {
                action = try await store.actionID(event.actionCase)
                actionIDs[event.actionCase] = action
            }
            ids.append((source, action))
        }
        return ids
    }

    /// Inside a transaction: the batch's events the store lacks, and the snapshots after `after`
    /// through `through`. Returns how many events and snapshots were added.
    ///
    /// - Parameter fresh: For a session this transaction added, the seqs its `INSERT` took for
    ///   the batch; `nil` otherwise.
    private func copyBatch(
        _ batch: [LoggedEvent], ids: [(source: Int64, action: Int64)], of session: LogSession, into target: (id: Int64, base: Int64),
        after: Int64, through: Int64, fresh: [Int64]? = nil
    ) async throws -> (events: Int64, snapshots: Int) {
        let store = store
        let there: Int64?, taken: [Int64]
        if let fresh {
            (there, taken) = (nil, fresh)
        } else {
            // Held to the commit: a second pusher of this session waits here, then sees this batch.
            _ = try await store.rows("SELECT id FROM rewind.sessions WHERE id = \(target.id) FOR UPDATE")
            // With seqs for the whole batch, in the same round trip: those of events the store
            // has already go unused, as a rolled-back transaction's do.
            guard let row = try await store.rows("""
                SELECT (SELECT max(origin_seq) FROM rewind.events WHERE session_id = \(target.id)),
                       (SELECT array_agg(nextval('rewind.seqs')) FROM generate_series(1, \(batch.count)))
                """).first.map({ try $0.decode((Int64?, [Int64]).self) }) else {
                throw EventLogError.failed(path: store.location.description, reason: "a query that returns one row returned none")
            }
            (there, taken) = row
        }
        let missing = batch.drop(while: { event in there.map { event.seq <= $0 } ?? false })
        if !missing.isEmpty {
            guard taken.count == batch.count else {
                throw EventLogError.failed(path: store.location.description, reason: "the store gave \(taken.count) seqs of the \(batch.count) asked for")
            }
            let seqs = taken.sorted().prefix(missing.count)
            guard let low = seqs.first, let high = seqs.last else { return (0, 0) }
            let events = missing, taken = seqs, known = ids[(batch.count - missing.count)...], session = target.id
            try await store.copy(rows: events.count) { index, rows in
                let event = events[events.startIndex + index], seq = taken[taken.startIndex + index], ids = known[known.startIndex + index]
                // Links as the device log holds them: distances in its seqs, which the store
                // reads a pushed session by.
                rows.append(
                    session: session, seq: seq, originSeq: event.seq, time: event.time, action: ids.action,
                    payload: event.payload, source: ids.source, info: event.source.info, redaction: event.redaction,
                    cause: event.cause.flatMap { EventLink.seq($0).distance(from: event.seq) },
                    root: event.root.flatMap { EventLink.seq($0).distance(from: event.seq) }
                )
            }
            _ = try await store.rows("""
                UPDATE rewind.sessions
                SET first_seq = LEAST(coalesce(first_seq, \(low)), \(low)), last_seq = GREATEST(coalesce(last_seq, \(high)), \(high)),
                    event_count = event_count + \(Int64(missing.count))
                WHERE id = \(target.id)
                """)
        }
        return (Int64(missing.count), try await insertSnapshots(of: session, into: target, after: after, through: through))
    }

    /// Inserts the session's snapshots after `after` through `through`, each at the store seq
    /// of the event it follows (a snapshot whose event retention removed goes just before the
    /// next event kept). Returns how many were added.
    private func insertSnapshots(of session: LogSession, into target: (id: Int64, base: Int64), after: Int64, through: Int64) async throws -> Int {
        var added = 0
        for entry in try log.snapshotIndex(session: session.id) where entry.seq > after && entry.seq <= through && entry.seq > session.baseSeq {
            guard let snapshot = try log.snapshot(session: session.id, atOrBefore: entry.seq), snapshot.seq == entry.seq else { continue }
            added += try await store.rows("""
                INSERT INTO rewind.snapshots (session_id, seq, origin_seq, time, kind, state)
                SELECT \(target.id), coalesce(
                           (SELECT seq FROM rewind.events WHERE session_id = \(target.id) AND origin_seq = \(snapshot.seq)),
                           (SELECT max(seq) FROM rewind.events WHERE session_id = \(target.id) AND origin_seq < \(snapshot.seq)),
                           \(target.base)),
                       \(snapshot.seq), \(snapshot.time), \(snapshot.kind), \(snapshot.state)
                ON CONFLICT DO NOTHING
                RETURNING seq
                """).count
        }
        return added
    }

    private func sourceID(_ source: ActionSource) async throws -> Int64 {
        try await store.sourceID(
            file: source.file, function: source.function, line: Int64(clamping: source.line), column: Int64(clamping: source.column), origin: source.origin.rawValue
        )
    }

    // MARK: - Gaps

    private mutating func pushGap(_ gap: LogGap, into target: (id: Int64, base: Int64), resumed: Int64?) async throws {
        let cases = try PostgresLog.casesJSON(gap)
        report.gaps += try await store.rows("""
            INSERT INTO rewind.gaps (session_id, after_seq, lost, cases, reason, first_time, last_time, resumed_session_id)
            SELECT \(target.id), coalesce((SELECT seq FROM rewind.events WHERE session_id = \(target.id) AND origin_seq = \(gap.afterSeq)), \(target.base)),
                   \(Int64(gap.lost)), \(cases), \(gap.reason), \(gap.firstTime), \(gap.lastTime), \(resumed)
            ON CONFLICT DO NOTHING
            RETURNING id
            """).count
    }

    // MARK: - Helpers

    private func single<T: PostgresDecodable & Sendable>(_ type: T.Type, _ query: PostgresQuery) async throws -> T {
        try await store.single(type, query)
    }
}
