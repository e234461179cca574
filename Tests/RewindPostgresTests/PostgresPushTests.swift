import Crypto
import Foundation
import Rewind
import RewindExamples
import RewindLog
@testable import RewindPostgres
import RewindTestSupport
import Testing

/// Pushing device logs into a store: everything arrives once, in order, byte for byte, however
/// often and however interrupted the push.
@Suite("PostgreSQL push", .enabled(if: PostgresTestServer.enabled))
struct PostgresPushTests {
    /// The reference log (`LogReaderAnswers.deviceLog(in:)`): three todo sessions, binary-coded
    /// with periodic snapshots, so it has symbols, periodic snapshots and an empty session.
    static func deviceLog(in folder: TemporaryDirectory) async throws -> EventLog {
        try await LogReaderAnswers.deviceLog(in: folder)
    }

    /// A fleet's log: many short sessions — some empty, some with periodic snapshots — and one
    /// long session among them, of 30 actions and more.
    static func fleetLog(in folder: TemporaryDirectory) async throws -> EventLog {
        let log = try EventLog(path: folder.file("fleet.rewind"))
        var configuration = RecorderConfiguration<TodoState, TodoAction>()
        configuration.codec = BinaryPayloadCodec()
        configuration.snapshotInterval = 4
        configuration.snapshotBudget = .infinity
        for (seed, actions) in [3, 0, 7, 1, 12, 5, 0, 9, 30, 4, 6, 2, 8, 11, 3, 0, 5, 7, 2, 9].enumerated() {
            _ = try await recordSession(
                into: log, app: AppIdentity(id: "com.example.todo", version: "3.\(seed)"), initialState: TodoState(),
                reducer: Todo.reducer, effects: Todo.effects(environment: .simulated()), user: TodoUser(seed: UInt64(seed + 10)), actions: actions,
                configuration: configuration
            )
        }
        return log
    }

    /// What the store holds of the pushed log, in a form to compare with the log: per session
    /// (by its number in the log) the origin seqs in store-seq order, the payloads by origin
    /// seq, the snapshots' origin seqs, and whether the session's bounds and its snapshots' store
    /// seqs are right.
    static func contents(of location: PostgresLocation) async throws -> [String] {
        try await PostgresTestServer.strings(location, """
            SELECT s.origin_session || ':' || s.app_version || ':' || s.event_count || ':' ||
                   coalesce((SELECT string_agg(e.origin_seq::text || '=' || md5(coalesce(e.payload, ''::bytea))
                                                || '<' || coalesce(e.cause_distance::text, '') || '/' || coalesce(e.root_distance::text, ''), ',' ORDER BY e.seq)
                             FROM rewind.events e WHERE e.session_id = s.id), '') || ':' ||
                   coalesce((SELECT string_agg(p.origin_seq::text || '=' || md5(p.state), ',' ORDER BY p.seq)
                             FROM rewind.snapshots p WHERE p.session_id = s.id), '') || ':' ||
                   (coalesce(s.first_seq = (SELECT min(seq) FROM rewind.events e WHERE e.session_id = s.id)
                             AND s.last_seq = (SELECT max(seq) FROM rewind.events e WHERE e.session_id = s.id), true)
                    -- each snapshot at the store seq of the last event at or before it, or the base
                    AND NOT EXISTS (SELECT 1 FROM rewind.snapshots p WHERE p.session_id = s.id AND p.seq IS DISTINCT FROM coalesce(
                            (SELECT max(e.seq) FROM rewind.events e WHERE e.session_id = s.id AND e.origin_seq <= p.origin_seq), s.base_seq)))::text
            FROM rewind.sessions s ORDER BY s.origin_session
            """)
    }

    /// The same, read from the log.
    static func contents(of log: EventLog) throws -> [String] {
        try log.sessions().map { session in
            var cursor = log.events(EventFilter(session: session.id), pageSize: 500)
            let events = try cursor.collect().map { event -> String in
                let distances = [event.cause, event.root].map { $0.map { String(event.seq - $0) } ?? "" }
                return "\(event.seq)=\(md5(event.payload ?? Data()))<\(distances[0])/\(distances[1])"
            }.joined(separator: ",")
            let snapshots = try log.snapshotIndex(session: session.id).map { entry in
                "\(entry.seq)=\(md5(try #require(try log.snapshot(session: session.id, atOrBefore: entry.seq)).state))"
            }.joined(separator: ",")
            return "\(session.id):\(session.app.version):\(session.eventCount):\(events):\(snapshots):true"
        }
    }

    /// What the server's `md5()` gives for the same bytes: a short, exact stand-in for them.
    static func md5(_ data: Data) -> String {
        Insecure.MD5.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    /// The log's totals: events and snapshots.
    static func totals(_ log: EventLog) throws -> (events: Int64, snapshots: Int) {
        let sessions = try log.sessions()
        return (sessions.reduce(0) { $0 + $1.eventCount }, try sessions.reduce(0) { $0 + (try log.snapshotIndex(session: $1.id).count) })
    }

    @Test("a pushed log arrives whole: every session, event, payload and snapshot, in order; pushing again adds nothing")
    func pushAndRepush() async throws {
        let folder = try TemporaryDirectory()
        let log = try await Self.deviceLog(in: folder)
        try await PostgresTestServer.withDatabase { location in
            let store = try await PostgresLog.open(location)
            defer { Task { await store.close() } }
            let progress = Recorded<PostgresLog.PushProgress>()
            let report = try await store.push(log, batchSize: 40, progress: progress.append)
            let totals = try Self.totals(log)
            #expect(totals.events == 195 && totals.snapshots > 5, "three sessions, periodic snapshots")
            #expect(report == .init(sessions: 3, newSessions: 3, events: totals.events, alreadyThere: 0, snapshots: totals.snapshots, gaps: 0))
            #expect(progress.all.last?.events == 195 && progress.all.last?.sessionsDone == 3)
            #expect(progress.all.map(\.events) == progress.all.map(\.events).sorted(), "progress only goes forward")
            #expect(try await Self.contents(of: location) == Self.contents(of: log))
            #expect(try Self.contents(of: log).contains { $0.contains("</0") } && Self.contents(of: log).contains { $0.range(of: "<[0-9]+/", options: .regularExpression) != nil },
                    "the device log has roots and caused events, and the store holds their causes")
            let spaces = try await PostgresTestServer.strings(location, "SELECT count(*)::text FROM rewind.symbols")
            #expect(spaces == ["\(try log.storedSymbols().count)"])

            let again = try await store.push(log, batchSize: 40)
            #expect(again == .init(sessions: 3, newSessions: 0, events: 0, alreadyThere: 195, snapshots: 0, gaps: 0))
            #expect(try await Self.contents(of: location) == Self.contents(of: log))
        }
    }

    @Test("a new session goes in one transaction with its initial snapshot and its first batch; each later batch in one of its own")
    func newSessionTransactions() async throws {
        let folder = try TemporaryDirectory()
        let log = try await Self.deviceLog(in: folder)
        try await PostgresTestServer.withDatabase { location in
            let store = try await PostgresLog.open(location)
            defer { Task { await store.close() } }
            _ = try await store.push(log, batchSize: 20)
            // Per session: the transaction (xmin) of each event in the log's order, and of the
            // initial snapshot, which nothing updates (the session's row is, by every batch).
            let rows = try await PostgresTestServer.strings(location, """
                SELECT s.origin_session || ';' || s.event_count || ';' ||
                       coalesce((SELECT string_agg(e.xmin::text, ',' ORDER BY e.origin_seq) FROM rewind.events e WHERE e.session_id = s.id), '') || ';' ||
                       coalesce((SELECT p.xmin::text FROM rewind.snapshots p WHERE p.session_id = s.id AND p.seq = s.base_seq), 'none')
                FROM rewind.sessions s ORDER BY s.origin_session
                """)
            #expect(rows.count == 3)
            var batches = 0
            for row in rows {
                let fields = row.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
                try #require(fields.count == 4, "\(row)")
                let count = try #require(Int(fields[1])), created = fields[3]
                #expect(created != "none", "every session of the log has an initial snapshot: \(row)")
                // Runs of events that share a transaction, in order.
                var runs: [(xmin: String, length: Int)] = []
                for xmin in fields[2].split(separator: ",").map(String.init) {
                    if runs.last?.xmin == xmin { runs[runs.count - 1].length += 1 } else { runs.append((xmin, 1)) }
                }
                #expect(runs.map(\.length) == stride(from: 0, to: count, by: 20).map { min(20, count - $0) }, "\(row)")
                #expect(Set(runs.map(\.xmin)).count == runs.count, "a transaction per batch: \(row)")
                if let first = runs.first {
                    #expect(first.xmin == created, "the first batch went with the session's creation: \(row)")
                }
                batches += runs.count
            }
            #expect(batches >= 9, "sessions of several batches: \(rows)")
        }
    }

    @Test("a fleet's short sessions go several to a transaction, each whole: its row, snapshots and events; no transaction past a batch")
    func shortSessionsShareTransactions() async throws {
        let folder = try TemporaryDirectory()
        let log = try await Self.fleetLog(in: folder)
        try await PostgresTestServer.withDatabase { location in
            let store = try await PostgresLog.open(location)
            defer { Task { await store.close() } }
            let progress = Recorded<PostgresLog.PushProgress>()
            let report = try await store.push(log, batchSize: 20, progress: progress.append)
            let totals = try Self.totals(log)
            #expect(report == .init(sessions: 20, newSessions: 20, events: totals.events, alreadyThere: 0, snapshots: totals.snapshots, gaps: 0))
            #expect(try await Self.contents(of: location) == Self.contents(of: log))
            #expect(progress.all.last?.sessionsDone == 20 && progress.all.last?.events == totals.events)
            #expect(progress.all.map(\.sessionsDone) == progress.all.map(\.sessionsDone).sorted(), "progress only goes forward")
            // Per session: its events, and the transactions (xmin) of its row, its snapshots and
            // its events.
            let rows = try await PostgresTestServer.strings(location, """
                SELECT s.event_count || ';' ||
                       (SELECT string_agg(DISTINCT x::text, ',') FROM (
                            SELECT s.xmin AS x UNION ALL SELECT p.xmin FROM rewind.snapshots p WHERE p.session_id = s.id
                            UNION ALL SELECT e.xmin FROM rewind.events e WHERE e.session_id = s.id) AS t)
                FROM rewind.sessions s ORDER BY s.origin_session
                """)
            var eventsByTransaction: [String: Int] = [:], sessionsByTransaction: [String: Int] = [:]
            for row in rows {
                let fields = row.split(separator: ";").map(String.init)
                try #require(fields.count == 2, "\(row)")
                let events = try #require(Int(fields[0]))
                guard events <= 20 else { continue }
                #expect(!fields[1].contains(","), "a short session goes whole in one transaction: \(row)")
                eventsByTransaction[fields[1], default: 0] += events
                sessionsByTransaction[fields[1], default: 0] += 1
            }
            #expect(sessionsByTransaction.values.reduce(0, +) == 19, "every session but the long one is short")
            #expect(sessionsByTransaction.count <= 9, "short sessions share transactions: \(sessionsByTransaction)")
            #expect(eventsByTransaction.values.allSatisfy { $0 <= 20 }, "no transaction holds more than a batch: \(eventsByTransaction)")

            let again = try await store.push(log, batchSize: 20)
            #expect(again == .init(sessions: 20, newSessions: 0, events: 0, alreadyThere: totals.events, snapshots: 0, gaps: 0))
        }
    }

    @Test("short sessions whose snapshots are too large to read ahead still go whole, their snapshots read in the transaction")
    func heavySnapshots() async throws {
        let folder = try TemporaryDirectory()
        let log = try EventLog(path: folder.file("heavy-states.rewind"))
        // Three sessions of six events, a snapshot of about 600 KB after each of the last five:
        // 3 MB of states a session, past what a push reads ahead.
        for number in 0..<3 {
            let session = try log.beginSession(app: AppIdentity(id: "com.example.todo"), initialState: TodoState())
            let records = (0..<6).map { index in
                EventRecord(TodoAction.item(.toggle(id: UUID())), source: ActionSource(file: "Heavy.swift", function: "f", line: UInt(index + 1), column: 1))
            }
            let seqs = try #require(try log.append(records, to: session))
            for seq in seqs.dropFirst() {
                try log.appendSnapshot(["state": "\(number) \(seq) " + String(repeating: "x", count: 600_000)], to: session, after: seq)
            }
        }
        try await PostgresTestServer.withDatabase { location in
            let store = try await PostgresLog.open(location)
            defer { Task { await store.close() } }
            let report = try await store.push(log)
            #expect(report.snapshots == (try Self.totals(log).snapshots) && report.snapshots == 18)
            #expect(try await Self.contents(of: location) == Self.contents(of: log))
            let transactions = try await PostgresTestServer.strings(location, """
                SELECT count(DISTINCT x)::text FROM (SELECT s.xmin::text AS x FROM rewind.sessions s UNION ALL SELECT p.xmin::text FROM rewind.snapshots p
                                                     UNION ALL SELECT e.xmin::text FROM rewind.events e) AS t
                """)
            #expect(transactions == ["1"], "the three sessions whole in one transaction")
        }
    }

    @Test("thousands of empty sessions (an app launched often, never used) go a thousand a transaction, past what one statement could bind")
    func manyEmptySessions() async throws {
        let folder = try TemporaryDirectory()
        let log = try EventLog(path: folder.file("launches.rewind"))
        // 3,200 sessions of 21 bound values each would be 67,200 in one INSERT: past the 65,535
        // a statement can bind. (The log's syncs off: this is about the push, and 3,200 synced
        // commits took half a minute.) Each launch ends its session, as an app closed does: left
        // open, every begin looked at all the earlier ones still open (this process holds
        // them), and the 3,200 begins took 31 s instead of 5.
        try log.weakenSynchronousForTesting("off")
        for _ in 0..<3_200 {
            let session = try log.beginSession(app: AppIdentity(id: "com.example.todo"), initialState: TodoState())
            try log.endSession(session.id)
        }
        try await PostgresTestServer.withDatabase { location in
            let store = try await PostgresLog.open(location)
            defer { Task { await store.close() } }
            let report = try await store.push(log)
            #expect(report.newSessions == 3_200 && report.snapshots == 3_200 && report.events == 0)
            let transactions = try await PostgresTestServer.strings(location, "SELECT count(DISTINCT xmin::text)::text FROM rewind.sessions")
            #expect(transactions == ["4"], "a thousand sessions a transaction")
            #expect(try await Self.contents(of: location) == Self.contents(of: log))
        }
    }

    @Test("a fleet's push cut short keeps whole sessions only; pushing again finishes it")
    func fleetResumes() async throws {
        let folder = try TemporaryDirectory()
        let log = try await Self.fleetLog(in: folder)
        try await PostgresTestServer.withDatabase { location in
            let store = try await PostgresLog.open(location)
            defer { Task { await store.close() } }
            await #expect(throws: EventLogError.self) {
                try await store.push(log, install: nil, batchSize: 20, progress: nil, stoppingAfter: 2)
            }
            // Each session the store has is whole, as in the log, and they are the log's first.
            let partial = try await Self.contents(of: location), whole = try Self.contents(of: log)
            #expect(!partial.isEmpty && partial.count < whole.count)
            #expect(partial == Array(whole.prefix(partial.count)))
            let finished = try await store.push(log, batchSize: 20)
            #expect(finished.newSessions == whole.count - partial.count)
            #expect(try await Self.contents(of: location) == whole)
        }
    }

    @Test("a session retention emptied arrives with the snapshot it kept past its last event")
    func snapshotsPastTheEvents() async throws {
        let folder = try TemporaryDirectory()
        let log = try await Self.deviceLog(in: folder)
        // Every event goes; the last session keeps the snapshot at the cut, past its events, so
        // that the log still replays from there. A later session records on from it.
        try log.trim(to: Retention(maxEvents: 0))
        var configuration = RecorderConfiguration<TodoState, TodoAction>()
        configuration.codec = BinaryPayloadCodec()
        _ = try await recordSession(
            into: log, app: AppIdentity(id: "com.example.todo", version: "2.4"), initialState: TodoState(),
            reducer: Todo.reducer, effects: Todo.effects(environment: .simulated()), user: TodoUser(seed: 4), actions: 30,
            configuration: configuration
        )
        let emptied = try #require(try log.sessions().first)
        #expect(emptied.eventCount == 0)
        #expect(try log.snapshotIndex(session: emptied.id).contains { $0.seq > emptied.baseSeq })
        try await PostgresTestServer.withDatabase { location in
            let store = try await PostgresLog.open(location)
            defer { Task { await store.close() } }
            let report = try await store.push(log)
            #expect(report.snapshots == (try Self.totals(log).snapshots))
            #expect(try await Self.contents(of: location) == Self.contents(of: log))
        }
    }

    @Test("a push cut short keeps every committed batch and nothing half-written; pushing again finishes it")
    func resumes() async throws {
        let folder = try TemporaryDirectory()
        let log = try await Self.deviceLog(in: folder)
        try await PostgresTestServer.withDatabase { location in
            let store = try await PostgresLog.open(location)
            defer { Task { await store.close() } }
            let error = await #expect(throws: EventLogError.self) {
                try await store.push(log, install: nil, batchSize: 30, progress: nil, stoppingAfter: 2)
            }
            #expect(error.map(String.init(describing:))?.contains("a push cut short") == true)
            let partial = try await PostgresTestServer.strings(location, "SELECT count(*)::text || '/' || count(DISTINCT origin_seq)::text FROM rewind.events")
            #expect(partial == ["60/60"], "two whole batches")
            let finished = try await store.push(log, batchSize: 30)
            #expect(finished.events == 135 && finished.alreadyThere == 60 && finished.newSessions == 2)
            #expect(try await Self.contents(of: location) == Self.contents(of: log))
        }
    }

    @Test("a log that grew since its last push: only the new events go, after the old ones")
    func grows() async throws {
        let folder = try TemporaryDirectory()
        let log = try await Self.deviceLog(in: folder)
        try await PostgresTestServer.withDatabase { location in
            let store = try await PostgresLog.open(location)
            defer { Task { await store.close() } }
            _ = try await store.push(log)
            _ = try await recordSession(
                into: log, app: AppIdentity(id: "com.example.todo", version: "2.4"), initialState: TodoState(),
                reducer: Todo.reducer, effects: Todo.effects(environment: .simulated()), user: TodoUser(seed: 4), actions: 30
            )
            let report = try await store.push(log)
            #expect(report.newSessions == 1 && report.events == 30 && report.alreadyThere == 195)
            #expect(try await Self.contents(of: location) == Self.contents(of: log))
        }
    }

    @Test("the largest batches (up to 10,000 events, past what one INSERT could bind) go whole")
    func largestBatches() async throws {
        let folder = try TemporaryDirectory()
        let log = try EventLog(path: folder.file("large.rewind"))
        let session = try log.beginSession(app: AppIdentity(id: "com.example.todo"), initialState: TodoState())
        let records = (0..<8_000).map { index in EventRecord(TodoAction.item(.toggle(id: UUID())), source: ActionSource(file: "Large.swift", function: "f", line: UInt(index % 50 + 1), column: 1)) }
        try log.append(records, to: session)
        try await PostgresTestServer.withDatabase { location in
            let store = try await PostgresLog.open(location)
            defer { Task { await store.close() } }
            let report = try await store.push(log, batchSize: 10_000)
            #expect(report.events == 8_000)
            #expect(try await Self.contents(of: location) == Self.contents(of: log))
        }
    }

    @Test("a batch ends early once its payloads reach 8 MiB: large payloads go in several transactions, whole")
    func batchBytes() async throws {
        let folder = try TemporaryDirectory()
        let log = try EventLog(path: folder.file("heavy.rewind"))
        let session = try log.beginSession(app: AppIdentity(id: "com.example.todo"), initialState: TodoState())
        // 1,200 events of about 20 KB each: 24 MB, three times the bound.
        let records = (0..<1_200).map { index in
            EventRecord(TodoAction.item(.rename(id: UUID(), title: "\(index) " + String(repeating: "x", count: 20_000))), source: ActionSource(file: "Heavy.swift", function: "f", line: 1, column: 1))
        }
        try log.append(records, to: session)
        try await PostgresTestServer.withDatabase { location in
            let store = try await PostgresLog.open(location)
            defer { Task { await store.close() } }
            let progress = Recorded<PostgresLog.PushProgress>()
            let report = try await store.push(log, progress: progress.append)
            #expect(report.events == 1_200)
            // A progress call after each batch, then one for the session's end.
            let counts = progress.all.map(\.events)
            let batches = zip(counts, [0] + counts).map { $0 - $1 }.filter { $0 > 0 }
            #expect(batches.count >= 3, "batches of \(batches)")
            // The bound holds to within one page read (256 events).
            #expect(batches.allSatisfy { $0 <= PostgresLog.pushBatchBytes / 20_000 + 256 }, "batches of \(batches)")
            #expect(try await Self.contents(of: location) == Self.contents(of: log))
        }
    }

    @Test("two processes pushing the same log at once add each event once", arguments: ["device", "fleet"])
    func concurrentPushers(kind: String) async throws {
        let folder = try TemporaryDirectory()
        let log = try await kind == "fleet" ? Self.fleetLog(in: folder) : Self.deviceLog(in: folder)
        let (total, count) = (try Self.totals(log).events, try log.sessions().count)
        try await PostgresTestServer.withDatabase { location in
            await (try PostgresLog.open(location)).close()
            try await withThrowingTaskGroup(of: PostgresLog.PushReport.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        let store = try await PostgresLog.open(location)
                        defer { Task { await store.close() } }
                        return try await store.push(log, batchSize: 20)
                    }
                }
                var events: Int64 = 0, sessions = 0
                for try await report in group {
                    events += report.events
                    sessions += report.newSessions
                }
                #expect(events == total && sessions == count, "between them, each event and session once")
            }
            #expect(try await Self.contents(of: location) == Self.contents(of: log))
        }
    }

    @Test("recorded gaps arrive, pointing at the event before the loss and the session recording resumed in")
    func gaps() async throws {
        let (folder, path) = try logWithRecordedGap()
        _ = folder
        let log = try EventLog(path: path)
        try await PostgresTestServer.withDatabase { location in
            let store = try await PostgresLog.open(location)
            defer { Task { await store.close() } }
            let report = try await store.push(log)
            #expect(report.gaps == 1)
            let gap = try await PostgresTestServer.strings(location, """
                SELECT g.lost || ':' || (SELECT origin_seq FROM rewind.events e WHERE e.session_id = g.session_id AND e.seq = g.after_seq)
                       || ':' || (SELECT origin_session FROM rewind.sessions WHERE id = g.resumed_session_id)
                FROM rewind.gaps g
                """)
            let recorded = try #require(try log.gaps().first)
            #expect(gap == ["\(recorded.lost):\(recorded.afterSeq):\(recorded.resumedSession ?? 0)"])
            #expect(try await store.push(log).gaps == 0)
        }
    }

    @Test("bad pushes are refused before anything is written")
    func refusals() async throws {
        let folder = try TemporaryDirectory()
        let log = try await Self.deviceLog(in: folder)
        try await PostgresTestServer.withDatabase { location in
            let store = try await PostgresLog.open(location)
            defer { Task { await store.close() } }
            for size in [0, -1, 10_001, Int.max] {
                let error = await #expect(throws: EventLogError.self) { try await store.push(log, batchSize: size) }
                #expect(error.map(String.init(describing:))?.contains("give 1 to 10,000") == true)
            }
            let reader = try await PostgresLog.open(location, mode: .readOnly)
            defer { Task { await reader.close() } }
            let readOnly = await #expect(throws: EventLogError.self) { try await reader.push(log) }
            #expect(readOnly.map(String.init(describing:))?.contains("opened read-only") == true)
            let sessions = try await PostgresTestServer.strings(location, "SELECT count(*)::text FROM rewind.sessions")
            #expect(sessions == ["0"])
        }
    }

    @Test("a crashed or hung session's mark arrives with it, is read in place, and comes back with a pull", arguments: [
        CrashMarkBytes().bytes,
        HangMark(actionCase: "cart.checkout", source: ActionSource(file: "Shop/CartView.swift", function: "pay()", line: 42, column: 9),
                 began: 1_795_813_821.25, detected: 1_795_813_823.5, limit: 2, processID: 42).bytes,
    ])
    func markedSession(mark: [UInt8]) async throws {
        let folder = try TemporaryDirectory()
        let log = try CrashMarkBytes.crashedLog(at: folder.file("marked.rewind"), mark: mark)
        defer { try? log.close() }
        let ending = try #require(try log.sessions().first?.ending)
        #expect((ending.kind == .crashed && ending.crash != nil) || (ending.kind == .hung && ending.hang != nil), "\(ending)")
        try await PostgresTestServer.withDatabase { location in
            let store = try await PostgresLog.open(location)
            defer { Task { await store.close() } }
            _ = try await store.push(log)
            let reader = try await store.reader()
            #expect(try reader.sessions().first?.ending == ending)
            let pulled = folder.file("pulled.rewind")
            _ = try await store.pull(.log(try #require(try log.identity())), to: pulled)
            #expect(try EventLog(path: pulled, mode: .readOnly).sessions().first?.ending == ending)
        }
    }
}
