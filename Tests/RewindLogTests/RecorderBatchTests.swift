import Foundation
import Rewind
import RewindExamples
@testable import RewindLogCore
@testable import RewindSQLite
import RewindTestSupport
import Synchronization
import Testing

/// The recorder with the binary codec, whose symbols are shared by every writer of a file, and
/// with transactions smaller than its buffer.
@Suite("Recorder batches and symbols")
struct RecorderBatchTests {
    /// An action whose tags become new binary symbols.
    enum Tagged: Codable, Equatable, Sendable {
        case tags(NamedFields)
        case plain(Int)
    }

    struct Counter: Codable, Equatable, Sendable { var count = 0 }

    static let countActions = Reducer<Counter, Tagged> { state, _ in state.count += 1 }

    @Test("two recorders on one file, each bringing new keys in every batch, never mix up symbol ids")
    func twoRecordersIntroducingKeys() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("two.rewind")
        let failures = Recorded<String>()
        func recorder(_ name: String) throws -> (Recorder<Counter, Tagged>, Store<Counter, Tagged>) {
            var configuration = RecorderConfiguration<Counter, Tagged>()
            configuration.codec = BinaryPayloadCodec()
            configuration.batchSize = 16
            configuration.bufferCapacity = 64
            configuration.onFailure = { failures.append("\(name): \($0)") }
            let recorder = Recorder<Counter, Tagged>(log: try EventLog(path: path), app: AppIdentity(id: name), configuration: configuration)
            return (recorder, Store(initialState: Counter(), reducer: Self.countActions, middleware: recorder.middleware))
        }
        func actions(_ prefix: String) -> [Tagged] {
            (0..<600).map { index in index % 3 == 0 ? .tags(NamedFields(["\(prefix)-\(index)": index, "shared": index])) : .plain(index) }
        }
        let (first, firstStore) = try recorder("a")
        let (second, secondStore) = try recorder("b")
        let firstActions = actions("a"), secondActions = actions("b")
        DispatchQueue.concurrentPerform(iterations: 2) { lane in
            let (store, actions) = lane == 0 ? (firstStore, firstActions) : (secondStore, secondActions)
            for action in actions { store.dispatch(action) }
        }
        try first.close()
        try second.close()
        #expect(failures.all.isEmpty)

        let reader = try EventLog(path: path, mode: .readOnly)
        let codec = try #require(reader.codecs["binary"])
        for (session, expected) in [(try #require(first.session), firstActions), (try #require(second.session), secondActions)] {
            var cursor = reader.events(EventFilter(session: session.id))
            let decoded = try cursor.collect().map { try $0.decodeAction(as: Tagged.self, codec: codec, path: path) }
            #expect(decoded == expected)
        }
        let names = try reader.read { db in try String.fetchAll(db, sql: "SELECT name FROM symbols") }
        #expect(names.count == Set(names).count)
        #expect(Set(names).isSuperset(of: ["a-0", "b-0", "a-597", "b-597", "shared"]))
    }

    @Test("a buffer committed in small batches keeps every event in order and each snapshot at its seq")
    func smallBatchesWithSnapshots() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("shop.rewind")
        var configuration = RecorderConfiguration<ShopState, ShopAction>()
        configuration.codec = BinaryPayloadCodec()
        configuration.batchSize = 7
        configuration.bufferCapacity = 100
        configuration.snapshotInterval = 5
        configuration.snapshotBudget = .infinity
        let session = try await recordSession(
            into: try EventLog(path: path), app: AppIdentity(id: "com.example.shop"), initialState: ShopState(), reducer: Shop.reducer,
            effects: Shop.effects(environment: .simulated), user: Shopper(seed: 9), actions: 400, configuration: configuration
        )
        let log = try EventLog(path: path, mode: .readOnly)
        let codec = try #require(log.codecs["binary"])
        var cursor = log.events()
        let events = try cursor.collect()
        #expect(events.map(\.seq) == Array(1...Int64(session.reduced.count)))
        for (event, dispatched) in zip(events, session.reduced) {
            #expect(try event.decodeAction(as: ShopAction.self, codec: codec, path: path) == dispatched.action)
        }
        let logSession = try #require(try log.sessions().first)
        let snapshots = try log.snapshotIndex(session: logSession.id).dropFirst()
        #expect(snapshots.map(\.seq) == Array(stride(from: 5, through: Int64(session.reduced.count), by: 5)))
        for entry in snapshots {
            let snapshot = try #require(try log.snapshot(session: logSession.id, atOrBefore: entry.seq))
            #expect(try snapshot.decodeState(as: ShopState.self, codec: codec, path: path) == session.states[Int(entry.seq) - 1])
        }
    }

    @Test("flush returns only once the last small batch of a buffer is committed")
    func flushWaitsForEveryBatch() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("flush.rewind")
        var configuration = RecorderConfiguration<Counter, Tagged>()
        configuration.codec = BinaryPayloadCodec()
        configuration.batchSize = 7
        configuration.durability = .buffered(maxDelay: .seconds(60))
        let recorder = Recorder<Counter, Tagged>(log: try EventLog(path: path), app: AppIdentity(id: "flush"), configuration: configuration)
        let store = Store(initialState: Counter(), reducer: Self.countActions, middleware: recorder.middleware)
        let reader = try EventLog(path: path, mode: .readOnly)
        var dispatched = 0
        for round in 1...5 {
            for index in 0..<(100 * round) { store.dispatch(index % 10 == 0 ? .tags(NamedFields(["r\(round)-\(index)": index])) : .plain(index)) }
            dispatched += 100 * round
            try recorder.flush()
            #expect(try reader.seqRange() == 1...Int64(dispatched))
        }
        try recorder.close()
    }

    @Test("a writer whose disk fills forgets the symbols of its failed batch while another process takes their numbers; its later payloads decode to the right keys")
    func fullDiskWriterAndAnotherProcess() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("keys.rewind")
        var configuration = RecorderConfiguration<Counter, Tagged>()
        configuration.codec = BinaryPayloadCodec()
        configuration.snapshotInterval = 0
        configuration.onFailure = { _ in }
        let log = try EventLog(path: path)
        let recorder = Recorder<Counter, Tagged>(log: log, app: AppIdentity(id: "a"), configuration: configuration)
        let store = Store(initialState: Counter(), reducer: Self.countActions, middleware: recorder.middleware)
        store.dispatch(.plain(0))
        try await recorder.flush()

        // This writer's disk is full: its batch, and the 40 symbols it interned, are lost.
        try log.simulateFullDisk()
        // (Long keys, so the batch needs new pages.)
        let long = String(repeating: "k", count: 2_000)
        let keyed = (0..<40).map { Tagged.tags(NamedFields(["a-\($0)": $0, "\(long)-\($0)": $0])) }
        for action in keyed { store.dispatch(action) }
        #expect(throws: EventLogError.diskFull(path: path)) { try recorder.flush() }

        // Another process commits 40 new keys of its own, under the numbers the lost batch had used.
        let other = try await run(builtProduct("rewind-stress"), ["keyed-writer", "--log", path, "--prefix", "b", "--count", "40"])
        #expect(other.status == 0, "\(other.standardOutput)\(other.standardError)")

        // Room again: the same keys are recorded, and must be committed under numbers of their own.
        try log.freeDiskSpace()
        for action in keyed { store.dispatch(action) }
        try await recorder.close()

        let reader = try EventLog(path: path, mode: .readOnly)
        let codec = try #require(reader.codecs["binary"])
        let sessions = try reader.sessions()
        let resumed = try #require(sessions.last { $0.app.id == "a" })
        var cursor = reader.events(EventFilter(session: resumed.id))
        #expect(try cursor.collect().map { try $0.decodeAction(as: Tagged.self, codec: codec, path: path) } == keyed)
        let otherSession = try #require(sessions.first { $0.app.id == "com.example.stress.b" })
        var others = reader.events(EventFilter(session: otherSession.id))
        #expect(try others.collect().map { try $0.decodeAction(as: [String: Int].self, codec: codec, path: path) } == (0..<40).map { ["b-\($0)": $0] })
        let names = try reader.read { db in try String.fetchAll(db, sql: "SELECT name FROM symbols") }
        #expect(names.count == Set(names).count)
        #expect(Set(names).isSuperset(of: ["a-0", "a-39", "b-0", "b-39"]))
        // Each of the first 40 is committed or counted lost: committed when the writer woke
        // before the rest and its batch fit in the pages the file already had (a prefix), lost
        // in one gap per failed batch; recording resumed after each.
        let first = try #require(sessions.first { $0.app.id == "a" })
        var firstEvents = reader.events(EventFilter(session: first.id))
        let committed = try firstEvents.collect().dropFirst().map { try $0.decodeAction(as: Tagged.self, codec: codec, path: path) }
        #expect(committed == Array(keyed.prefix(committed.count)))
        let gaps = try reader.gaps()
        #expect(
            committed.count + gaps.reduce(0) { $0 + $1.lost } == 40 && !gaps.isEmpty && gaps.allSatisfy { $0.resumedSession != nil },
            "\(committed.count) committed; \(gaps.map(\.summary))"
        )
    }
}
