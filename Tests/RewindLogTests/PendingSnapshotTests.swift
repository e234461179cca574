import Foundation
import Rewind
import RewindCoding
import RewindLog
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
}
