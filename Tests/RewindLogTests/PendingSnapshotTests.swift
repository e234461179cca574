import Foundation
import Rewind
import RewindCoding
import RewindLog
import RewindLogCore
import RewindReplay
import RewindTestSupport
import Synchronization
import Testing

/// A text codec's periodic snapshots are encoded ahead — from when the dispatch path hands them
/// over, while the writer still commits the events before them — so that it goes on freeing
/// room while a grown state encodes; a codec with symbols encodes them in the writer's transaction, once
/// the events before them are committed. Either way each snapshot is the state after its event.
@Suite("Snapshots encoded ahead")
struct PendingSnapshotTests {
    /// A count that notes, when encoded, how many events its log had committed then.
    struct Telling: Codable, Sendable, Equatable {
        static let encoded = Mutex<[(path: String, count: Int, committed: Int)]>([])
        var path: String
        var count = 0

        init(path: String) { self.path = path }

        func encode(to encoder: any Encoder) throws {
            if count > 0 {
                let committed = try EventLog(path: path, mode: .readOnly).sessions().reduce(0) { $0 + Int($1.eventCount) }
                Self.encoded.withLock { $0.append((path, count, committed)) }
            }
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(path, forKey: .path)
            try container.encode(count, forKey: .count)
        }
    }

    static let reducer = Reducer<Telling, Int> { state, amount in state.count += amount }

    @Test("a text codec's snapshots are encoded ahead of the events before them; the binary codec's after them; each holds the state after its event", arguments: ["json", "binary"])
    func ahead(codec: String) async throws {
        let folder = try TemporaryDirectory()
        var configuration = RecorderConfiguration<Telling, Int>()
        configuration.codec = codec == "json" ? JSONPayloadCodec() : BinaryPayloadCodec()
        configuration.snapshotInterval = 100
        configuration.snapshotBudget = .infinity
        let path = folder.file("telling.rewind")
        let recorder = Recorder<Telling, Int>(log: try EventLog(path: path), app: AppIdentity(id: "com.example.telling"), configuration: configuration)
        let store = Store(initialState: Telling(path: path), reducer: Self.reducer, middleware: recorder.middleware)
        for _ in 0..<1_000 { store.dispatch(1) }
        try await recorder.close()

        let periodic = Telling.encoded.withLock { $0.filter { $0.path == path } }
        #expect(periodic.map(\.count).sorted() == Array(stride(from: 100, through: 1_000, by: 100)), "each snapshot encoded once")
        // A snapshot's encoding begins as it is handed over, and the takes before a snapshot
        // stop at it: the events before the first are still to commit when it is encoded.
        let ahead = periodic.filter { $0.committed < $0.count }
        if codec == "json" {
            #expect(!ahead.isEmpty, "\(periodic)")
        } else {
            #expect(ahead.isEmpty, "\(periodic)")
        }
        let log = try EventLog(path: path, mode: .readOnly)
        let session = try #require(try log.sessions().first)
        let index = try log.snapshotIndex(session: session.id).filter { $0.seq > session.baseSeq }
        #expect(index.count == 10)
        guard codec == "json" else { return }  // (binary payloads need the log's symbols to read)
        for entry in index {
            let snapshot = try #require(try log.snapshot(session: session.id, atOrBefore: entry.seq))
            let state = try JSONPayloadCodec().decode(Telling.self, from: snapshot.state)
            #expect(state.count == Int(entry.seq - session.baseSeq), "the state after event \(entry.seq)")
        }
    }

    /// A count whose encoding, at `held`, waits until the test lets it go (a gate per test case).
    struct Gated: Codable, Sendable, Equatable {
        static let held = 100
        static let gates = [
            "flush": DispatchSemaphore(value: 0), "close": DispatchSemaphore(value: 0), "suspend": DispatchSemaphore(value: 0),
            "queued": DispatchSemaphore(value: 0), "deflating": DispatchSemaphore(value: 0), "storing": DispatchSemaphore(value: 0),
            "sealing": DispatchSemaphore(value: 0),
        ]
        static let waiting = Mutex<Set<String>>([])
        var gate: String
        var count = 0

        func encode(to encoder: any Encoder) throws {
            if count == Self.held, let gate = Self.gates[gate] {
                _ = Self.waiting.withLock { $0.insert(self.gate) }
                // Bounded, so that nothing can hang on it for good; ten minutes, because in the
                // whole suite the test's own task waited its turn for minutes (a 120 s bound ran
                // out, and the snapshot was written before the test looked). Every way out of
                // `heldBack` opens the gate before it waits for the recorder.
                _ = gate.wait(timeout: .now() + 600)
            }
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(gate, forKey: .gate)
            try container.encode(count, forKey: .count)
        }
    }

    /// The events `log` holds once it holds `count`, or a minute has passed.
    static func committed(_ count: Int, in log: some LogReader) async throws -> Int {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            // Read once more past the deadline: a task the suite's other tests kept from running
            // would otherwise end on a count read long before.
            let committed = try log.sessions().reduce(0) { $0 + Int($1.eventCount) }
            if committed == count || ContinuousClock.now >= deadline { return committed }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test(
        "a snapshot still encoding is held back: the events after it are committed meanwhile, a flush, a close or a suspension waits for it, and it lands at its seq",
        .serialized, arguments: ["flush", "close", "suspend"]
    )
    func heldBack(waitingWith call: String) async throws {
        let gate = try #require(Gated.gates[call])
        let folder = try TemporaryDirectory()
        var configuration = RecorderConfiguration<Gated, Int>()
        configuration.snapshotInterval = Gated.held
        configuration.snapshotBudget = .infinity
        let path = folder.file("held-\(call).rewind")
        let recorder = Recorder<Gated, Int>(log: try EventLog(path: path), app: AppIdentity(id: "com.example.held"), configuration: configuration)
        let store = Store(initialState: Gated(gate: call), reducer: Reducer { state, amount in state.count += amount }, middleware: recorder.middleware)
        var released = false
        defer { if !released { gate.signal() } }
        for _ in 0..<180 { store.dispatch(1) }

        // The snapshot after the 100th action is being encoded, and waits: the 80 events after
        // it are committed all the same (a writer that waited for it would commit 100 at most).
        let reader = try EventLog(path: path, mode: .readOnly)
        let committed = try await Self.committed(180, in: reader)
        let encoding = Gated.waiting.withLock { $0.contains(call) }
        #expect(encoding)
        #expect(committed == 180)
        let session = try #require(try reader.sessions().first)
        #expect(try reader.snapshotIndex(session: session.id).allSatisfy { $0.seq == session.baseSeq }, "not written while encoding")

        // A flush, a close or a suspension waits for it.
        let returned = DispatchSemaphore(value: 0)
        let waiting = Task {
            switch call {
            case "flush": try await recorder.flush()
            case "close": try await recorder.close()
            default: try await recorder.suspend()
            }
            returned.signal()
        }
        let early = returned.wait(timeout: .now() + 0.3) == .success
        #expect(!early, "\(call) returned before the snapshot held back was written")
        released = true
        gate.signal()
        try await waiting.value
        if call == "suspend" { #expect(try reader.session(session.id).ending?.kind == .suspended) }
        let index = try reader.snapshotIndex(session: session.id).filter { $0.seq > session.baseSeq }
        #expect(index.map(\.seq) == [session.baseSeq + Int64(Gated.held)])
        for entry in index {
            let snapshot = try #require(try reader.snapshot(session: session.id, atOrBefore: entry.seq))
            #expect(try JSONPayloadCodec().decode(Gated.self, from: snapshot.state).count == Int(entry.seq - session.baseSeq), "the state after its event")
        }
        try await recorder.close()
        // The log folds to the live state from it.
        let replayer = Replayer(log: try EventLog(path: path, mode: .readOnly), reducer: Reducer<Gated, Int> { state, amount in state.count += amount })
        let restored = try replayer.finalState(session: session.id)
        #expect(restored.count == 180)
    }

    @Test("a snapshot with another's encoding queued behind it is not held back: the writer waits for it, the encoder setting the pace")
    func notHeldWithEncodingsQueued() async throws {
        let gate = try #require(Gated.gates["queued"])
        let folder = try TemporaryDirectory()
        var configuration = RecorderConfiguration<Gated, Int>()
        configuration.snapshotInterval = Gated.held
        configuration.snapshotBudget = .infinity
        // The writer coalesces for two seconds before its first take, so that both snapshots
        // (after the 100th and the 200th action) are handed over, the second's encoding queued
        // behind the first's, before it reaches the first.
        let maxDelay = Duration.seconds(2)
        configuration.durability = .buffered(maxDelay: maxDelay)
        let path = folder.file("queued.rewind")
        let recorder = Recorder<Gated, Int>(log: try EventLog(path: path), app: AppIdentity(id: "com.example.queued"), configuration: configuration)
        let store = Store(initialState: Gated(gate: "queued"), reducer: Reducer { state, amount in state.count += amount }, middleware: recorder.middleware)
        var released = false
        defer { if !released { gate.signal() } }
        for _ in 0..<250 { store.dispatch(1) }

        // The writer commits the 100 events before the first snapshot, then waits for its
        // encoding: a writer that held it back would go on to the second, 200 events in.
        let reader = try EventLog(path: path, mode: .readOnly)
        let deadline = ContinuousClock.now + .seconds(60)
        var committed = 0
        while committed < Gated.held, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            committed = try reader.sessions().reduce(0) { $0 + Int($1.eventCount) }
        }
        #expect(committed == Gated.held)
        // The next take comes after another `maxDelay` (fewer than a batch wait to coalesce).
        try await Task.sleep(for: maxDelay + .seconds(1))
        committed = try reader.sessions().reduce(0) { $0 + Int($1.eventCount) }
        #expect(committed == Gated.held, "the writer went past a snapshot whose encoding had another queued behind it")
        #expect(Gated.waiting.withLock { $0.contains("queued") })

        released = true
        gate.signal()
        try await recorder.flush()
        let session = try #require(try reader.sessions().first)
        #expect(session.eventCount == 250)
        let index = try reader.snapshotIndex(session: session.id).filter { $0.seq > session.baseSeq }
        #expect(index.map(\.seq) == [session.baseSeq + 100, session.baseSeq + 200])
        for entry in index {
            let snapshot = try #require(try reader.snapshot(session: session.id, atOrBefore: entry.seq))
            #expect(try JSONPayloadCodec().decode(Gated.self, from: snapshot.state).count == Int(entry.seq - session.baseSeq), "the state after its event")
        }
        try await recorder.close()
    }

    @Test(
        "a snapshot held back is deflated where it is encoded, for a log that deflates a session's snapshots in the clear; not otherwise",
        .serialized, arguments: ["deflating", "storing", "sealing"]
    )
    func heldDeflatedAhead(log kind: String) async throws {
        let gate = try #require(Gated.gates[kind])
        var configuration = RecorderConfiguration<Gated, Int>()
        configuration.snapshotInterval = Gated.held
        configuration.snapshotBudget = .infinity
        let key = try LogKey(id: "k", bytes: Data(repeating: 7, count: 32))
        let log = MemoryLog(keys: LogKeys(current: kind == "sealing" ? key : nil), deflatesSnapshots: kind != "storing")
        let recorder = Recorder<Gated, Int>(into: RecordingDestination(log), app: AppIdentity(id: "com.example.deflated"), configuration: configuration)
        let store = Store(initialState: Gated(gate: kind), reducer: Reducer { state, amount in state.count += amount }, middleware: recorder.middleware)
        var released = false
        defer { if !released { gate.signal() } }
        for _ in 0..<180 { store.dispatch(1) }

        // Held back: the 80 events after it are committed while its encoding waits.
        #expect(try await Self.committed(180, in: log) == 180)
        #expect(Gated.waiting.withLock { $0.contains(kind) })
        released = true
        gate.signal()
        try await recorder.close()
        let session = try #require(try log.sessions().first)
        let written = log.snapshotsWritten.withLock { $0 }
        #expect(written.map(\.seq) == [session.baseSeq + Int64(Gated.held)])
        #expect(written.map(\.deflationMadeAhead) == [kind == "deflating"], "\(kind)")
        let restored = try SessionReader(log: log, session: session).state(Gated.self, atOrBefore: session.baseSeq + Int64(Gated.held))
        #expect(restored.state.count == Gated.held, "the state after its event")
    }
}
