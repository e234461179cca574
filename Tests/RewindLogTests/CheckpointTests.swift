import Foundation
import Rewind
import RewindLog
import RewindTestSupport
import Synchronization
import Testing

/// When a log file's write-ahead log is checkpointed: by a recorder's writer once it has
/// caught up, rather than inside the commit a waiting dispatch waits for; at SQLite's 1,000
/// pages without a recorder.
@Suite("Write-ahead log checkpoints")
struct CheckpointTests {
    /// `count` KB of distinct actions (a payload is stored once however often it repeats).
    static func actions(_ count: Int) -> [String] {
        (0..<count).map { "\($0) " + String(repeating: "x", count: 1_000) }
    }

    final class Watch: Sendable {
        let committed = Atomic<Bool>(false)
        let grown = Atomic<Int>(0)
    }

    static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    @Test("a recorder's burst leaves the checkpoint to its writer: the write-ahead log grows past SQLite's 1,000 pages meanwhile, is checkpointed once the writer caught up, and goes back to that size")
    func recorderPutsCheckpointsOff() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("burst.rewind")
        let log = try EventLog(path: path)
        var configuration = RecorderConfiguration<Int, String>()
        // Retention's trims checkpoint too.
        configuration.retention = nil
        configuration.batchSize = 500
        let recorder = Recorder<Int, String>(log: log, app: AppIdentity(id: "app"), configuration: configuration)
        let store = Store(initialState: 0, reducer: Reducer { count, _ in count += 1 }, middleware: recorder.middleware)
        // The write-ahead log's size, looked at every millisecond until the burst is committed.
        let watch = Watch()
        let watching = Thread {
            while !watch.committed.load(ordering: .acquiring) {
                watch.grown.max(Self.size(path + "-wal"), ordering: .relaxed)
                usleep(1_000)
            }
        }
        watching.start()
        // Dispatched far faster than the writer commits them: 4.5 MB, about 6.3 MB of the
        // write-ahead log, between SQLite's 1,000 pages and the 2,000 at which a commit
        // checkpoints even while a recorder puts it off.
        let actions = Self.actions(4_500)
        for action in actions { store.dispatch(action) }
        try await recorder.flush()
        watch.committed.store(true, ordering: .releasing)
        // Checkpointed at 1,000 pages (4 MB), the log would have started again from its
        // beginning, its file no larger than that and one commit (0.5 MB).
        #expect(watch.grown.load(ordering: .relaxed) > 5_500_000, "the write-ahead log reached \(watch.grown.load(ordering: .relaxed)) bytes")
        // Caught up, the writer checkpoints: the database file takes the pages.
        let deadline = ContinuousClock.now + .seconds(60)
        while Self.size(path) < 4_500_000, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(Self.size(path) >= 4_500_000, "the database file is \(Self.size(path)) bytes")
        // The next commit starts the write-ahead log again, cut back to SQLite's usual size.
        store.dispatch("one more")
        try await recorder.flush()
        let after = Self.size(path + "-wal")
        #expect(after <= 1_000 * 4_096 + 100_000, "the write-ahead log is \(after) bytes")
        try await recorder.close()
        #expect(try log.seqRange()?.count == actions.count + 1)
        #expect(try log.checkIntegrity().isSound)
    }

    @Test("without a recorder a log checkpoints at 1,000 pages, as SQLite does")
    func appendsCheckpointAsSQLiteDoes() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("appended.rewind")
        let log = try EventLog(path: path)
        let session = try log.beginSession(app: AppIdentity(id: "app"), initialState: 0)
        var largest = 0
        let actions = Self.actions(12_000)
        for start in stride(from: 0, to: actions.count, by: 250) {
            try log.append(actions[start..<start + 250].map { EventRecord($0, source: ActionSource()) }, to: session)
            largest = max(largest, Self.size(path + "-wal"))
        }
        // 1,000 pages and one append's (250 KB of payloads, and its pages of the indexes).
        #expect(largest <= 1_000 * 4_096 + 1_000_000, "the write-ahead log reached \(largest) bytes")
        #expect(Self.size(path) >= 10_000_000)
    }
}
