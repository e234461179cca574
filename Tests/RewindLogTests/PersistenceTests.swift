import Foundation
import GRDB
import Rewind
import RewindExamples
@testable import RewindLogCore
@testable import RewindSQLite
import RewindTestSupport
import Synchronization
import Testing

@Suite("Event-sourced persistence")
struct PersistenceTests {
    @Test("a store restarted from its log has exactly the state it had, across several launches")
    func restartFromLog() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("shop.rewind")
        let app = AppIdentity(id: "com.example.shop")
        var configuration = RecorderConfiguration<ShopState, ShopAction>()
        configuration.snapshotInterval = 64

        var expected = ShopState()
        for launch in 0..<3 {
            let log = try EventLog(path: path)
            let restored = try log.restoredState(app: app, reducer: Shop.reducer) ?? ShopState()
            #expect(restored == expected, "launch \(launch) did not restore the previous state")
            let recorder = Recorder<ShopState, ShopAction>(log: log, app: app, configuration: configuration)
            let store = Store(initialState: restored, reducer: Shop.reducer, middleware: .combine(recorder.middleware, Shop.effects(environment: .simulated)))
            var shopper = Shopper(seed: UInt64(100 + launch))
            await shopper.drive(store, while: { $0 < 150 })
            try await recorder.close()
            expected = store.state
            try log.close()
        }
        let sessions = try EventLog(path: path, mode: .readOnly).sessions()
        #expect(sessions.count == 3)
        #expect(try EventLog(path: path, mode: .readOnly).restoredState(app: app, reducer: Shop.reducer) == expected)
        // Each session continues the seqs of the one before.
        #expect(sessions[1].baseSeq == sessions[0].seqRange?.upperBound)
        #expect(sessions[2].seqRange?.lowerBound == sessions[1].seqRange!.upperBound + 1)
    }

    @Test("a log without the app's sessions restores nothing")
    func noSession() throws {
        let folder = try TemporaryDirectory()
        let log = try EventLog(path: folder.file("x.rewind"))
        _ = try log.beginSession(app: AppIdentity(id: "other"), initialState: ShopState())
        #expect(try log.restoredState(app: AppIdentity(id: "com.example.shop"), reducer: Shop.reducer) == nil)
    }

    struct CounterV1: Codable, Sendable { var count: Int }
    struct CounterV2: Codable, Equatable, Sendable { var total: Int; var unit: String }
    enum ActionV1: Codable, Sendable { case add(Int) }
    enum ActionV2: Codable, Sendable { case add(amount: Int) }

    static let reducerV2 = Reducer<CounterV2, ActionV2> { state, action in
        if case let .add(amount) = action { state.total += amount }
    }

    static func recordV1(at path: String, keys: LogKeys = LogKeys()) throws {
        let log = try EventLog(path: path, keys: keys)
        let session = try log.beginSession(app: AppIdentity(id: "counter", actionSchemaVersion: 1, stateSchemaVersion: 1), initialState: CounterV1(count: 5))
        try log.append([EventRecord(ActionV1.add(2), source: ActionSource()), EventRecord(ActionV1.add(3), source: ActionSource())], to: session)
        try log.close()
    }

    @Test("older payloads go through the upcaster before decoding, encrypted ones once opened", arguments: [false, true])
    func upcasting(encrypted: Bool) throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("counter.rewind")
        let key = try LogKey(id: "counter", bytes: Data(repeating: 7, count: 32))
        try Self.recordV1(at: path, keys: LogKeys(current: encrypted ? key : nil))
        let upcaster = Upcaster(
            action: { data, version in
                #expect(version == 1)
                // {"add":{"_0":2}} → {"add":{"amount":2}}
                var object = try JSONSerialization.jsonObject(with: data) as! [String: [String: Int]]
                object["add"] = ["amount": object["add"]!["_0"]!]
                return try JSONSerialization.data(withJSONObject: object)
            },
            state: { data, _ in
                let old = try JSONDecoder().decode(CounterV1.self, from: data)
                return try JSONEncoder().encode(CounterV2(total: old.count, unit: "items"))
            }
        )
        let app = AppIdentity(id: "counter", actionSchemaVersion: 2, stateSchemaVersion: 2)
        let state = try EventLog(path: path, keys: LogKeys(others: [key])).restoredState(app: app, reducer: Self.reducerV2, upcaster: upcaster)
        #expect(state == CounterV2(total: 10, unit: "items"))
        #expect(try EventLog(path: path, mode: .readOnly).sessions().first?.encryption?.keyID == (encrypted ? "counter" : nil))
    }

    @Test("without an upcaster, the error names the seq, the case and the versions")
    func missingUpcaster() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("counter.rewind")
        try Self.recordV1(at: path)
        let app = AppIdentity(id: "counter", actionSchemaVersion: 2, stateSchemaVersion: 2)
        let error = #expect(throws: EventLogError.self) {
            try EventLog(path: path).restoredState(app: app, reducer: Self.reducerV2)
        }
        #expect(error?.description.contains("seq 0 (initial snapshot) no longer decodes: no value for key 'total'") == true)
        #expect(error?.description.contains("recorded with schema version 1, the app is at 2; no upcaster was given for it") == true)
    }

    @Test("retention trims at a snapshot, and what remains still restores the same state")
    func retentionKeepsReplayableLog() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("shop.rewind")
        let app = AppIdentity(id: "com.example.shop")
        var configuration = RecorderConfiguration<ShopState, ShopAction>()
        configuration.snapshotInterval = 100
        configuration.snapshotBudget = .infinity  // a snapshot every 100, so the cut lands within 100 of the limit
        let log = try EventLog(path: path)
        let recorder = Recorder<ShopState, ShopAction>(log: log, app: app, configuration: configuration)
        let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: .combine(recorder.middleware, Shop.effects(environment: .simulated)))
        var shopper = Shopper(seed: 8)
        await shopper.drive(store, while: { gestures in gestures < 5_000 && ((try? log.seqRange()?.upperBound) ?? nil ?? 0) < 1_000 })
        try await recorder.close()
        let last = try #require(try log.seqRange()?.upperBound)

        let removed = try log.trim(to: Retention(maxEvents: 250))
        let range = try #require(try log.seqRange())
        #expect(range.upperBound == last)
        #expect(range.count >= 250 && range.count < 350)
        #expect(removed == Int(last) - range.count)
        let session = try #require(try log.sessions().first)
        let start = try #require(try log.snapshot(session: session.id, atOrBefore: range.lowerBound))
        #expect(start.seq == range.lowerBound - 1)
        #expect(start.kind == "retention")
        #expect(try log.restoredState(app: app, reducer: Shop.reducer) == store.state)
    }

    @Test("retention across interleaved sessions cuts where every session can still replay, and keeps their bounds")
    func retentionAcrossInterleavedSessions() throws {
        let folder = try TemporaryDirectory()
        let log = try EventLog(path: folder.file("bounds.rewind"))
        let early = try log.beginSession(app: AppIdentity(id: "early"), initialState: 0)
        for index in 0..<30 { try log.append([EventRecord(index, source: ActionSource())], to: early) }   // seqs 1…30
        try log.appendSnapshot(30, to: early, after: 30)
        // Ended: late and other are live, and hold the cut at their latest snapshots.
        try log.endSession(early.id)
        let late = try log.beginSession(app: AppIdentity(id: "late"), initialState: 0)
        let other = try log.beginSession(app: AppIdentity(id: "other"), initialState: 0)
        // Interleaved, as two processes would leave them: late takes 31, 33, …, 59 and other 32, …, 60.
        for index in 0..<15 {
            try log.append([EventRecord(index, source: ActionSource())], to: late)
            try log.append([EventRecord(index, source: ActionSource())], to: other)
        }
        try log.appendSnapshot(5, to: late, after: 40)
        func bounds() throws -> [[Int64?]] {
            try log.sessions().map { [$0.id, Int64($0.eventCount), $0.seqRange?.lowerBound, $0.seqRange?.upperBound] }
        }
        func expectSound() throws {
            let report = try log.checkIntegrity()
            #expect(report.isSound, "\(report)")
        }
        #expect(try bounds() == [[1, 30, 1, 30], [2, 15, 31, 59], [3, 15, 32, 60]])
        try expectSound()

        // Keeping 20 events would cut at late's snapshot at 40, but other's only snapshot before
        // it is its initial one at 30: cutting at 40 would leave other nothing to replay from.
        #expect(try log.trim(to: Retention(maxEvents: 20)) == 30)
        #expect(try bounds() == [[1, 0, nil, nil], [2, 15, 31, 59], [3, 15, 32, 60]])
        try expectSound()

        // With a snapshot of other at 40 too, the cut is at 40; early, empty and without
        // snapshots, goes.
        try log.appendSnapshot(5, to: other, after: 40)
        #expect(try log.trim(to: Retention(maxEvents: 20)) == 10)
        #expect(try bounds() == [[2, 10, 41, 59], [3, 10, 42, 60]])
        try expectSound()

        try log.append([EventRecord(99, source: ActionSource())], to: late)
        #expect(try bounds() == [[2, 11, 41, 61], [3, 10, 42, 60]])
        #expect(try log.session(containing: 61).eventCount == 11)
    }

    @Test("retention gives the space back: the file shrinks, and what remains replays", arguments: [true, false])
    func retentionShrinksTheFile(createdBeforeAutoVacuum: Bool) throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("big.rewind")
        let log = try EventLog(path: path)
        if createdBeforeAutoVacuum {
            // A log as schema 5 created it: no auto-vacuum. The first trim converts it.
            try log.database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA auto_vacuum = NONE; VACUUM") }
            #expect(try log.database.read { db in try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") } == 0)
        } else {
            #expect(try log.database.read { db in try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") } == 2, "a new log is created incremental")
        }
        let session = try log.beginSession(app: AppIdentity(id: "app"), initialState: 0)
        let padding = String(repeating: "p", count: 400)
        for block in 0..<20 {
            try log.append((0..<1_000).map { EventRecord("\(block)-\($0)-\(padding)", source: ActionSource()) }, to: session)
            try log.appendSnapshot(block, to: session, after: Int64(block + 1) * 1_000)
        }
        func fileSize() throws -> Int {
            try log.database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
            return try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        }
        let before = try fileSize()
        #expect(before > 8_000_000)
        #expect(try log.trim(to: Retention(maxEvents: 1_000)) == 19_000)
        let after = try fileSize()
        #expect(after < before / 10, "\(before) bytes before the trim, \(after) after")
        #expect(try log.database.read { db in try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") } == 2)
        #expect(try log.checkIntegrity().isSound)
        #expect(try log.seqRange() == 19_001...20_000)
        let reader = try SessionReader(log: log, session: log.session(session.id))
        #expect(try reader.state(Int.self, atOrBefore: 20_000).state == 19)
    }

    @Test("a backlog is trimmed in steps of at most the limit, each cut at a snapshot, ending where one trim ends")
    func retentionInSteps() throws {
        let folder = try TemporaryDirectory()
        let log = try EventLog(path: folder.file("backlog.rewind"))
        let session = try log.beginSession(app: AppIdentity(id: "app"), initialState: 0)
        for block in 0..<20 {
            try log.append((0..<1_000).map { EventRecord("\(block)-\($0)", source: ActionSource()) }, to: session)
            try log.appendSnapshot(block, to: session, after: Int64(block + 1) * 1_000)
        }
        var steps: [Int] = []
        while true {
            let step = try log.trim(to: Retention(maxEvents: 1_000), removingAtMost: 2_500)
            steps.append(step.removed)
            #expect(try log.checkIntegrity().isSound)
            if step.isComplete { break }
            #expect(try log.seqRange()?.lowerBound == Int64(steps.reduce(0, +) + 1))
        }
        // 2,000 a step (the last snapshot within 2,500 events of the oldest), then the rest.
        #expect(steps == [2_000, 2_000, 2_000, 2_000, 2_000, 2_000, 2_000, 2_000, 2_000, 1_000])
        #expect(try log.seqRange() == 19_001...20_000)
        let reader = try SessionReader(log: log, session: log.session(session.id))
        #expect(try reader.state(Int.self, atOrBefore: 20_000).state == 19)
        #expect(try log.trim(to: Retention(maxEvents: 1_000), removingAtMost: 2_500) == (0, true))
    }

    @Test("a recorder over a backlog trims a step after each commit, not the whole backlog at once, until the log is within its limits")
    func recorderTrimsInSteps() async throws {
        let folder = try TemporaryDirectory()
        let log = try EventLog(path: folder.file("backlog.rewind"))
        // A backlog from before a limit was set: 20,000 events, a snapshot every 1,000.
        let old = try log.beginSession(app: AppIdentity(id: "app"), initialState: 0)
        for block in 0..<20 {
            try log.append((0..<1_000).map { EventRecord(block * 1_000 + $0, source: ActionSource()) }, to: old)
            try log.appendSnapshot((block + 1) * 1_000, to: old, after: Int64(block + 1) * 1_000)
        }
        try log.endSession(old.id)

        // The events each of the writer's transactions removes (0 for a batch's commit). The
        // recorder writes through this `EventLog`, so on this connection.
        let removedPerTransaction = RemovedPerTransaction()
        log.database.add(transactionObserver: removedPerTransaction, extent: .databaseLifetime)

        var configuration = RecorderConfiguration<Int, Int>()
        var retention = Retention(maxEvents: 1_000, checkEvery: 4)
        retention.eventsPerStep = 2_500
        configuration.retention = retention
        configuration.durability = .buffered(maxDelay: .seconds(60))
        let recorder = Recorder<Int, Int>(log: log, app: AppIdentity(id: "app"), configuration: configuration)
        let store = Store(initialState: 0, reducer: Reducer { count, action in count += action }, middleware: recorder.middleware)
        for _ in 0..<20 {
            store.dispatch(1)
            try await recorder.flush()
            #expect(try log.checkIntegrity().isSound)
        }
        try await recorder.close()

        let removed = removedPerTransaction.all
        let steps = removed.filter { $0 > 0 }
        // Each step is a transaction of its own, cut at the snapshot before 2,500 events, until
        // the log is within its limit (the snapshot before the last 1,000 events).
        #expect(steps == Array(repeating: 2_000, count: 9) + [1_000], "\(removed)")
        #expect(try log.seqRange()?.lowerBound == 19_001)
        // Once started, a step after every commit the writer makes caught up (not every fourth
        // commit): between two steps, the step's own giving back of space (`incremental_vacuum`)
        // and one batch's commit — or a commit more when this test's next action reached the
        // writer between its commit and its check, so that it was behind and the step waited
        // for a commit it made caught up (seen on a loaded machine). Steps every fourth commit
        // (`checkEvery`) would put five transactions between two.
        let stepIndices = removed.indices.filter { removed[$0] > 0 }
        let between = zip(stepIndices, stepIndices.dropFirst()).map { $1 - $0 - 1 }
        #expect(between.allSatisfy { (2...4).contains($0) }, "\(removed)")
    }

    @Test("during a burst the recorder checks retention once it has caught up, or after four times the due commits: a dispatch waiting for room does not wait for a check too")
    func retentionWaitsForTheWriterToCatchUp() async throws {
        let folder = try TemporaryDirectory()
        let log = try EventLog(path: folder.file("burst.rewind"))
        // The statements on the log's one connection, which the recorder writes through: its
        // batches' inserts, and retention's checks (each begins by reading the last seq).
        let statements = Mutex<[String]>([])
        try await log.database.writeWithoutTransaction { db in
            db.trace { event in statements.withLock { $0.append(event.expandedDescription) } }
        }
        var configuration = RecorderConfiguration<Int, Int>()
        // A check due after every commit.
        configuration.retention = Retention(maxEvents: 200, checkEvery: 1)
        configuration.snapshotInterval = 50
        configuration.snapshotBudget = .infinity
        configuration.batchSize = 100
        configuration.bufferCapacity = 1_000
        let recorder = Recorder<Int, Int>(log: log, app: AppIdentity(id: "app"), configuration: configuration)
        let store = Store(initialState: 0, reducer: Reducer { count, action in count += action }, middleware: recorder.middleware)
        // Dispatched far faster than the writer commits: it catches up only at the end.
        for _ in 0..<20_000 { store.dispatch(1) }
        try await recorder.flush()
        try await recorder.close()
        let all = statements.withLock { $0 }
        // A commit, or a check, since the last check.
        var sinceCheck: [Int] = [], commits = 0
        for statement in all {
            if statement.hasPrefix("COMMIT") { commits += 1 }
            if statement == "SELECT max(seq) FROM events" {
                sinceCheck.append(commits)
                commits = 0
            }
        }
        #expect(sinceCheck.count >= 10 && all.count > 1_000, "\(sinceCheck.count) checks, \(all.count) statements")
        // Before, a check after every commit: two commits since the last check (the batch's,
        // and that check's own). While behind, now a check after four at most (the writer's
        // patience), five with the check's own; earlier only when the writer caught up.
        let early = sinceCheck.filter { $0 < 5 }.count
        #expect(early * 4 <= sinceCheck.count, "checks after fewer than five commits: \(early) of \(sinceCheck.count): \(sinceCheck)")
        // And the log is still within its limit once the writer caught up.
        let kept = try #require(try log.seqRange()).count
        #expect(kept <= 200 + 50 + 100, "\(kept) events kept")
        #expect(try log.checkIntegrity().isSound)
    }

    /// Counts the `events` rows each committed transaction deleted, on the connection it is
    /// added to.
    final class RemovedPerTransaction: TransactionObserver, @unchecked Sendable {
        // `current` is touched only inside the connection's transactions, on its queue.
        private var current = 0
        private let committed = Mutex<[Int]>([])
        var all: [Int] { committed.withLock { $0 } }

        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
            if case .delete(tableName: "events") = eventKind { true } else { false }
        }
        func databaseDidChange(with event: DatabaseEvent) { current += 1 }
        func databaseDidCommit(_ db: Database) {
            committed.withLock { $0.append(current) }
            current = 0
        }
        func databaseDidRollback(_ db: Database) { current = 0 }
    }

    @Test("a recorder keeps about 14 days by default: an ended session older than that goes, a younger one stays; nil keeps everything")
    func defaultRetention() throws {
        #expect(RecorderConfiguration<ShopState, ShopAction>().retention == .default)
        #expect(Retention.default == Retention(maxBytes: 4_000_000, maxAge: .seconds(14 * 86_400)))
        let day = 86_400.0
        for (age, keeps) in [(15 * day, false), (13 * day, true)] {
            for retention in [Retention.default, nil] {
                let folder = try TemporaryDirectory()
                let path = folder.file("shop.rewind")
                let now = Date()
                // A session recorded `age` ago, ended.
                var old = RecorderConfiguration<ShopState, ShopAction>()
                old.clock = { now.addingTimeInterval(-age) }
                let first = Recorder<ShopState, ShopAction>(into: .file(path), app: AppIdentity(id: "com.example.shop"), configuration: old)
                let oldStore = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: first.middleware)
                for _ in 0..<10 { oldStore.dispatch(.cart(.add(productID: "tea", quantity: 1))) }
                try first.close()
                // Today's recorder: retention is checked every `checkEvery` commits.
                var today = RecorderConfiguration<ShopState, ShopAction>()
                today.retention = retention
                let second = Recorder<ShopState, ShopAction>(into: .file(path), app: AppIdentity(id: "com.example.shop"), configuration: today)
                let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: second.middleware)
                for _ in 0..<Retention.default.checkEvery {
                    store.dispatch(.cart(.add(productID: "mug", quantity: 1)))
                    try second.flush()
                }
                try second.close()
                let sessions = try EventLog(path: path, mode: .readOnly).sessions()
                let kept = retention == nil || keeps
                #expect(sessions.map(\.eventCount) == (kept ? [10, 64] : [64]), "aged \(age / day) days, retention \(String(describing: retention))")
            }
        }
    }

    @Test("retention down to nothing, by age and by bytes, never lets a seq be used twice")
    func seqsAreNeverReused() throws {
        for retention in [Retention(maxAge: .seconds(60)), Retention(maxBytes: 0)] {
            let folder = try TemporaryDirectory()
            let log = try EventLog(path: folder.file("trimmed.rewind"))
            let reducer = Reducer<Int, Int> { state, action in state += action }
            let start = Date(timeIntervalSince1970: 1_000_000)
            let session = try log.beginSession(app: AppIdentity(id: "app"), initialState: 0, at: start)
            try log.append((1...10).map { EventRecord($0, source: ActionSource(), time: start) }, to: session)
            try log.appendSnapshot(55, to: session, after: 10)

            // Every event is older than a minute, or over a budget of 0 bytes: all go.
            #expect(try log.trim(to: retention, now: start.addingTimeInterval(3_600)) == 10)
            #expect(try log.seqRange() == nil)
            try log.append([EventRecord(5, source: ActionSource())], to: session)
            #expect(try log.seqRange() == 11...11, "numbering goes on after the deleted events")
            let next = try log.beginSession(app: AppIdentity(id: "app"), initialState: 100)
            #expect(next.baseSeq == 11)
            try log.append([EventRecord(1, source: ActionSource())], to: next)
            #expect(try log.seqRange() == 11...12)

            // The kept snapshot at 10 is the state seq 11 follows.
            let reader = try SessionReader(log: log, session: log.session(session.id))
            let kept = try reader.state(Int.self, atOrBefore: 11)
            #expect(kept.seq == 10 && kept.state == 55)
            var state = kept.state
            try reader.forEachAction(Int.self, from: 11, through: 11) { _, action in
                state += action
                return .continue
            }
            #expect(state == 60)
            #expect(try log.restoredState(app: AppIdentity(id: "app"), reducer: reducer) == 101)
            #expect(try log.checkIntegrity().isSound)
        }
    }

    @Test("the integrity check names a session whose stored bounds disagree with its events")
    func wrongBoundsAreReported() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("tampered.rewind")
        let log = try EventLog(path: path)
        let session = try log.beginSession(app: AppIdentity(id: "tampered"), initialState: 0)
        try log.append((0..<5).map { EventRecord($0, source: ActionSource()) }, to: session)
        try log.close()
        try DatabaseQueue(path: path).write { db in try db.execute(sql: "UPDATE sessions SET event_count = 4") }
        let report = try EventLog(path: path, mode: .readOnly).checkIntegrity()
        #expect(!report.isSound)
        #expect(report.sessionsWithWrongBounds == [1])
        #expect(report.description.contains("sessions whose bounds or count disagree with their events: [1]"))
    }
}
