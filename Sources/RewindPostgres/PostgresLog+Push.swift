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
    /// a new session's first batch in the one that adds the session, and consecutive short new
    /// sessions whole, as many as fit a batch, in one (a fleet's log costs a commit a batch, not
    /// a session) — and pushing again finishes it. Two processes pushing the same log at once
    /// add each event once.
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

    /// The payload bytes that end a push's batch before its `batchSize` (8 MiB; a transaction of
    /// short sessions counts their snapshots' states too): with the next batch or the next new
    /// sessions read while the store takes this one, one new session read past them, and the
    /// copy's text twice a payload's size, a push holds a few tens of megabytes whatever the
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
        // What the next step needs from the log is read while the store takes this one: for a
        // log of many short sessions (a fleet's), that reading was a quarter of the push's time.
        let log = log, batchSize = batchSize, isKnown = Set(known.keys)
        func planned(_ index: Int, _ carried: NewSession?) async throws -> Step? {
            try await Self.step(at: index, of: sessions, known: isKnown, carried: carried, in: log, batchSize: batchSize)
        }
        var next = try await planned(0, nil)
        while let step = next {
            async let following = planned(step.sessions.upperBound, step.carried)
            switch step.kind {
            case .known:
                let index = step.sessions.lowerBound, session = sessions[index]
                guard let target = known[session.id] else {
                    throw EventLogError.failed(path: store.location.description, reason: "session \(session.id) of \(log.path) was known but cannot be found")
                }
                numbers[session.id] = target
                done += try await pushFound(session, target) { pushed in
                    progress?(.init(session: session.id, sessionsDone: index, sessions: sessions.count, events: done + pushed, eventsTotal: total))
                }
            case let .new(news):
                let added = try await addSessions(news, space: space)
                for (offset, (new, (target, first))) in zip(news, added).enumerated() {
                    let session = new.session, index = step.sessions.lowerBound + offset
                    numbers[session.id] = target
                    if let first, new.whole {
                        done += first.added
                        continue
                    }
                    // A long session's later batches, or one another pusher added meanwhile.
                    let before = done
                    done += try await (first == nil
                        ? pushFound(session, target) { pushed in
                            progress?(.init(session: session.id, sessionsDone: index, sessions: sessions.count, events: before + pushed, eventsTotal: total))
                        }
                        : pushEvents(of: session, into: target, after: first) { pushed in
                            progress?(.init(session: session.id, sessionsDone: index, sessions: sessions.count, events: before + pushed, eventsTotal: total))
                        })
                }
            }
            let end = step.sessions.upperBound
            progress?(.init(session: sessions[end - 1].id, sessionsDone: end, sessions: sessions.count, events: done, eventsTotal: total))
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
            var rows = ValueRows()
            let spaceValue = try rows.bind(space)
            for symbol in symbols[part..<min(part + 1_000, symbols.count)] {
                try rows.add([spaceValue, rows.bind(symbol.id), rows.bind(symbol.name)])
            }
            _ = try await store.rows(rows.query("INSERT INTO rewind.symbols (space_id, id, name) VALUES", then: "ON CONFLICT DO NOTHING"))
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

    /// One step of a push: a session the store had when the push began, or new sessions added
    /// in one transaction.
    struct Step: Sendable {
        enum Kind: Sendable {
            case known
            case new([NewSession])
        }
        var kind: Kind
        /// The sessions it covers, by their place in the log's list.
        var sessions: Range<Int>
        /// The new session after them, read from the log but too large to join them.
        var carried: NewSession?
    }

    /// What adding a session takes from the log: its shapes, its initial snapshot, its first
    /// batch of events, and the snapshots that batch reaches.
    struct NewSession: Sendable {
        var session: LogSession
        var shapes: SessionShapes
        var initial: LoggedSnapshot?
        var batch: [LoggedEvent]
        /// The snapshots after the session's base through ``through``; `nil` when their states
        /// are too large to hold ahead (past ``snapshotBytesAhead``): the transaction then reads
        /// them from the log one at a time.
        var snapshots: [LoggedSnapshot]?
        /// The batch's last event; `Int64.max` (the session's end: retention's snapshot past its
        /// last event too) when the batch is whole.
        var through: Int64

        /// Whether the batch holds every event the session has.
        var whole: Bool { through == .max }

        /// The bytes of its payloads and the states it holds, which bound a transaction's as a
        /// batch's.
        var bytes: Int {
            batch.reduce(0) { $0 + ($1.payload?.count ?? 0) } + (initial?.state.count ?? 0) + (snapshots ?? []).reduce(0) { $0 + $1.state.count }
        }
    }

    /// Sessions a transaction adds at most: each binds 21 values in the sessions' `INSERT`, and
    /// a statement binds at most 65,535 (PostgreSQL's protocol counts them in 16 bits; a push
    /// of 3,200 empty sessions in one statement failed).
    static let sessionsPerTransaction = 1_000

    /// The step at `index`: a session the store has, or new sessions — as many consecutive
    /// short ones, whole, as fit a batch (`batchSize` events, ``PostgresLog/pushBatchBytes``),
    /// or a long one with its first batch. A fleet's short sessions then share a transaction
    /// and its commit, as a long session's events share a batch's.
    private static func step(
        at index: Int, of sessions: [LogSession], known: Set<Int64>, carried: NewSession?, in log: any LogReader, batchSize: Int
    ) async throws -> Step? {
        guard index < sessions.count else { return nil }
        guard !known.contains(sessions[index].id) else { return Step(kind: .known, sessions: index..<index + 1) }
        let first = if let carried { carried } else { try await newSession(sessions[index], of: log, batchSize: batchSize) }
        var news = [first], events = first.batch.count, bytes = first.bytes, end = index + 1
        guard first.whole else { return Step(kind: .new(news), sessions: index..<end) }
        while end < sessions.count, news.count < sessionsPerTransaction, !known.contains(sessions[end].id) {
            let new = try await newSession(sessions[end], of: log, batchSize: batchSize)
            guard new.whole, events + new.batch.count <= batchSize, bytes + new.bytes <= PostgresLog.pushBatchBytes else {
                return Step(kind: .new(news), sessions: index..<end, carried: new)
            }
            news.append(new)
            events += new.batch.count
            bytes += new.bytes
            end += 1
        }
        return Step(kind: .new(news), sessions: index..<end)
    }

    private static func newSession(_ session: LogSession, of log: any LogReader, batchSize: Int) async throws -> NewSession {
        var batch: [LoggedEvent] = []
        if let last = session.seqRange?.upperBound, session.baseSeq < last {
            batch = try await self.batch(of: log, EventFilter(seqs: (session.baseSeq + 1)...last, session: session.id), after: session.baseSeq, count: batchSize)
        }
        let whole = (batch.last?.seq ?? session.baseSeq) >= session.lastSeq
        let through = whole ? Int64.max : batch.last?.seq ?? session.baseSeq
        let initial = try log.snapshot(session: session.id, atOrBefore: session.baseSeq)
        var snapshots: [LoggedSnapshot]? = [], states = 0
        for entry in try log.snapshotIndex(session: session.id).sorted(by: { $0.seq < $1.seq }) where entry.seq > session.baseSeq && entry.seq <= through {
            guard let snapshot = try log.snapshot(session: session.id, atOrBefore: entry.seq), snapshot.seq == entry.seq else { continue }
            states += snapshot.state.count
            guard states <= snapshotBytesAhead else {
                snapshots = nil
                break
            }
            snapshots?.append(snapshot)
        }
        return NewSession(
            session: session, shapes: try log.shapes(session: session.id), initial: initial, batch: batch, snapshots: snapshots, through: through
        )
    }

    /// The snapshot states a new session's reading ahead holds at most (2 MiB): a session with
    /// more (a large state snapshotted often) has them read in its transaction, one at a time.
    static let snapshotBytesAhead = 2 << 20

    /// Adds `news` to the store in one transaction — each session's row with its bounds, its
    /// snapshots and its first batch of events — and returns, for each, its number and base seq
    /// in the store and what its batch added (`nil` for a session another pusher of the same
    /// log added first: its transaction has it, and this one waited on its row's lock until the
    /// commit).
    ///
    /// The store's seqs are taken at once, one for each session's base, then one for each of
    /// its events, in the log's order; a session's rows are the transaction's own, so there is
    /// no lock to take and nothing to leave out.
    private mutating func addSessions(
        _ news: [NewSession], space: Int64?
    ) async throws -> [(target: (id: Int64, base: Int64), first: (added: Int64, through: Int64)?)] {
        var shapes: [(action: Int64?, state: Int64?)] = [], ids: [[(source: Int64, action: Int64)]] = []
        for new in news {
            shapes.append((try await shapeID(new.shapes.action), try await shapeID(new.shapes.state)))
            ids.append(try await internedIDs(of: new.batch))
        }
        let store = store, origin = origin, install = install, shapesByNew = shapes, idsByNew = ids
        let (added, events, snapshots) = try await store.transaction { () async throws -> ([Int64: (id: Int64, base: Int64)], Int64, Int) in
            let wanted = news.reduce(0) { $0 + 1 + $1.batch.count }
            let seqs = try await store.single([Int64].self, """
                SELECT array_agg(s ORDER BY s) FROM (SELECT nextval('rewind.seqs') AS s FROM generate_series(1, \(wanted))) AS taken
                """)
            guard seqs.count == wanted else {
                throw EventLogError.failed(path: store.location.description, reason: "the store gave \(seqs.count) seqs of the \(wanted) asked for")
            }
            // Where each session's seqs begin: its base, then its events'.
            let offsets = Dictionary(news.enumerated().map { ($1.session.id, $0) }, uniquingKeysWith: { first, _ in first })
            var starts: [Int] = [], position = 0
            for new in news {
                starts.append(position)
                position += 1 + new.batch.count
            }
            var rows = ValueRows()
            let (originValue, installValue, spaceValue) = try (rows.bind(origin), rows.bind(install), rows.bind(space))
            for (offset, new) in news.enumerated() {
                let session = new.session, app = session.app, key = session.encryption, ending = session.ending
                let base = seqs[starts[offset]], count = new.batch.count
                let (first, last) = count == 0 ? (nil, nil) : (seqs[starts[offset] + 1], seqs[starts[offset] + count])
                try rows.add([
                    originValue, rows.bind(session.id), installValue, rows.bind(app.id), rows.bind(app.version),
                    rows.bind(app.actionSchemaVersion), rows.bind(app.stateSchemaVersion), rows.bind(session.codec), spaceValue,
                    rows.bind(session.startedAt), rows.bind(base), rows.bind(session.info), rows.bind(key?.keyID), rows.bind(key?.salt),
                    rows.bind(key?.check), rows.bind(shapesByNew[offset].action), rows.bind(shapesByNew[offset].state),
                    rows.bind(ending?.kind.rawValue), rows.bind(ending?.seq), rows.bind(ending?.time), rows.bind(ending?.storedMarkText),
                    rows.bind(first), rows.bind(last), rows.bind(Int64(count)),
                ])
            }
            var added: [Int64: (id: Int64, base: Int64)] = [:]
            for row in try await store.rows(rows.query("""
                INSERT INTO rewind.sessions (origin, origin_session, install_id, app_id, app_version, action_schema_version, state_schema_version,
                                             codec, symbol_space_id, started_at, base_seq, info, key_id, key_salt, key_check,
                                             action_shape_id, state_shape_id, ending, end_seq, ended_at, crash, first_seq, last_seq, event_count)
                VALUES
                """, then: "ON CONFLICT (origin, origin_session) DO NOTHING RETURNING origin_session, id")) {
                let (number, id) = try row.decode((Int64, Int64).self)
                guard let offset = offsets[number] else { continue }
                added[number] = (id, seqs[starts[offset]])
            }
            // What the sessions added hold: their snapshots, then their events.
            var placed: [(session: Int64, seq: Int64, snapshot: LoggedSnapshot)] = []
            var copied: [(event: LoggedEvent, seq: Int64, ids: (source: Int64, action: Int64), session: Int64)] = []
            for (offset, new) in news.enumerated() {
                guard let (id, base) = added[new.session.id] else { continue }
                let taken = seqs[(starts[offset] + 1)...].prefix(new.batch.count)
                if let initial = new.initial { placed.append((id, base, initial)) }
                // Each snapshot at the store seq of the event it follows: the last event at or
                // before it (one whose event retention removed goes after the event before), or
                // the base. Both are in seq order.
                var before = 0
                for snapshot in new.snapshots ?? [] {
                    while before < new.batch.count, new.batch[before].seq <= snapshot.seq { before += 1 }
                    placed.append((id, before == 0 ? base : taken[taken.startIndex + before - 1], snapshot))
                }
                for (index, event) in new.batch.enumerated() {
                    copied.append((event, taken[taken.startIndex + index], idsByNew[offset][index], id))
                }
            }
            var snapshotsAdded = 0
            for start in stride(from: 0, to: placed.count, by: 1_000) {
                var rows = ValueRows()
                for (session, seq, snapshot) in placed[start..<min(start + 1_000, placed.count)] {
                    try rows.add([rows.bind(session), rows.bind(seq), rows.bind(snapshot.seq), rows.bind(snapshot.time), rows.bind(snapshot.kind), rows.bind(snapshot.state)])
                }
                snapshotsAdded += try await store.rows(rows.query(
                    "INSERT INTO rewind.snapshots (session_id, seq, origin_seq, time, kind, state) VALUES", then: "ON CONFLICT DO NOTHING RETURNING seq"
                )).count
            }
            let rowsToCopy = copied
            try await store.copy(rows: rowsToCopy.count) { index, into in
                let row = rowsToCopy[index]
                Self.appendCopy(of: row.event, seq: row.seq, ids: row.ids, session: row.session, to: &into)
            }
            // Snapshots too large to have been read ahead, placed by the events just copied.
            for new in news where new.snapshots == nil {
                guard let target = added[new.session.id] else { continue }
                snapshotsAdded += try await insertSnapshots(of: new.session, into: target, after: new.session.baseSeq, through: new.through)
            }
            return (added, Int64(rowsToCopy.count), snapshotsAdded)
        }
        if events > 0 { try countBatch() }
        report.newSessions += added.count
        report.events += events
        report.snapshots += snapshots
        var results: [(target: (id: Int64, base: Int64), first: (added: Int64, through: Int64)?)] = []
        for new in news {
            let session = new.session
            if let target = added[session.id] {
                results.append((target, (Int64(new.batch.count), new.batch.last?.seq ?? session.baseSeq)))
            } else if let found = try await existing(session) {
                results.append((found, nil))
            } else {
                throw EventLogError.failed(path: store.location.description, reason: "session \(session.id) of \(log.path) was added but cannot be found")
            }
        }
        return results
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

    /// A session the store has from this log: checked against the log, its ending brought up to
    /// date, and the events it lacks pushed. Returns how many of its events the store now has.
    private mutating func pushFound(_ session: LogSession, _ target: (id: Int64, base: Int64), progress: (Int64) -> Void) async throws -> Int64 {
        try await verify(session, as: target)
        try await pushEnding(of: session, into: target)
        return try await pushEvents(of: session, into: target, after: nil, progress: progress)
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
    /// `count`, ending early once their payloads reach ``PostgresLog/pushBatchBytes``.
    ///
    /// Read a page at a time (``batchPages``), each sized by the last page's largest payload to
    /// the bytes the batch has left: the bound holds to within a page. With pages of 256 from
    /// the first, a log of 1 MiB payloads had a push hold 256 MiB a page, and over 500 MiB at
    /// its peak with the page's `COPY` text (`PushCommandTests.pushMemoryIsBounded`).
    private static func batch(of log: any LogReader, _ filter: EventFilter, after: Int64, count: Int) async throws -> [LoggedEvent] {
        var batch: [LoggedEvent] = [], bytes = 0, after = after
        var page: [LoggedEvent] = []
        while batch.count < count, bytes < PostgresLog.pushBatchBytes {
            let asked = min(count - batch.count, batchPages.next(after: page, filling: PostgresLog.pushBatchBytes - bytes))
            page = try log.eventPage(filter, after: after, count: asked, newestFirst: false)
            batch += page
            bytes += page.reduce(0) { $0 + ($1.payload?.count ?? 0) }
            guard page.count == asked, let last = page.last?.seq else { break }
            after = last
        }
        return batch
    }

    /// A batch's pages: one event first (the payloads' sizes are not known yet), then up to
    /// 256, sized to the bytes the batch has left.
    private static let batchPages = PageSizing(first: 1, maximum: 256, bytes: PostgresLog.pushBatchBytes)

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
    private func copyBatch(
        _ batch: [LoggedEvent], ids: [(source: Int64, action: Int64)], of session: LogSession, into target: (id: Int64, base: Int64),
        after: Int64, through: Int64
    ) async throws -> (events: Int64, snapshots: Int) {
        let store = store
        // Held to the commit: a second pusher of this session waits here, then sees this batch.
        _ = try await store.rows("SELECT id FROM rewind.sessions WHERE id = \(target.id) FOR UPDATE")
        // With seqs for the whole batch, in the same round trip: those of events the store has
        // already go unused, as a rolled-back transaction's do.
        guard let (there, taken) = try await store.rows("""
            SELECT (SELECT max(origin_seq) FROM rewind.events WHERE session_id = \(target.id)),
                   (SELECT array_agg(nextval('rewind.seqs')) FROM generate_series(1, \(batch.count)))
            """).first.map({ try $0.decode((Int64?, [Int64]).self) }) else {
            throw EventLogError.failed(path: store.location.description, reason: "a query that returns one row returned none")
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
                Self.appendCopy(
                    of: events[events.startIndex + index], seq: taken[taken.startIndex + index], ids: known[known.startIndex + index],
                    session: session, to: &rows
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

    /// An event's row in a copy into the store's `events`, under store seq `seq`.
    private static func appendCopy(
        of event: LoggedEvent, seq: Int64, ids: (source: Int64, action: Int64), session: Int64, to rows: inout EventCopy
    ) {
        // Links as the device log holds them: distances in its seqs, which the store reads a
        // pushed session by.
        rows.append(
            session: session, seq: seq, originSeq: event.seq, time: event.time, action: ids.action,
            payload: event.payload, source: ids.source, info: event.source.info, redaction: event.redaction,
            cause: event.cause.flatMap { EventLink.seq($0).distance(from: event.seq) },
            root: event.root.flatMap { EventLink.seq($0).distance(from: event.seq) }
        )
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

/// The rows of a multi-row `VALUES`, each value bound as a parameter.
private struct ValueRows {
    private var bindings = PostgresBindings()
    private var rows: [String] = []

    /// Binds `value` and returns its parameter, to place in rows (once or in each).
    mutating func bind<Value: PostgresThrowingDynamicTypeEncodable>(_ value: Value?) throws -> String {
        try bindings.append(value)
        return "$\(bindings.count)"
    }

    mutating func add(_ values: [String]) {
        rows.append("(" + values.joined(separator: ", ") + ")")
    }

    /// `head`, the rows, then `tail`.
    func query(_ head: String, then tail: String = "") -> PostgresQuery {
        PostgresQuery(unsafeSQL: head + " " + rows.joined(separator: ", ") + " " + tail, binds: bindings)
    }
}
