import Foundation
import Rewind
import RewindLog
@testable import RewindSQLite
import RewindTestSupport
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

    static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    /// Appends `actions` 250 at a time; returns the largest the write-ahead log grew.
    static func append(_ actions: [String], to log: EventLog, session: LogSession) throws -> Int {
        var largest = 0
        for start in stride(from: 0, to: actions.count, by: 250) {
            try log.append(actions[start..<min(start + 250, actions.count)].map { EventRecord($0, source: ActionSource()) }, to: session)
            largest = max(largest, size(log.path + "-wal"))
        }
        return largest
    }

    @Test("without a recorder a log checkpoints at 1,000 pages, as SQLite does")
    func checkpointsAsSQLiteDoes() throws {
        let folder = try TemporaryDirectory()
        let log = try EventLog(path: folder.file("appended.rewind"))
        let session = try log.beginSession(app: AppIdentity(id: "app"), initialState: 0)
        let largest = try Self.append(Self.actions(12_000), to: log, session: session)
        // 1,000 pages and one append's (250 KB of payloads, and its pages of the indexes).
        #expect(largest <= 1_000 * 4_096 + 1_000_000, "the write-ahead log reached \(largest) bytes")
        #expect(Self.size(log.path) >= 10_000_000)
    }

    @Test("while a recorder writes through a log, a commit leaves the checkpoint to it up to 2,000 pages; its checkpoint, and the next commit, bring the log back to SQLite's size")
    func commitsPutTheCheckpointOff() throws {
        let folder = try TemporaryDirectory()
        let log = try EventLog(path: folder.file("deferred.rewind"))
        let session = try log.beginSession(app: AppIdentity(id: "app"), initialState: 0)
        // What the recorder's first write does.
        log.checkpoints.deferring.store(true, ordering: .relaxed)
        let before = try Self.append(Self.actions(4_500), to: log, session: session)
        #expect(before > 5_500_000, "the write-ahead log reached \(before) bytes")
        #expect(log.wantsCheckpoint && Self.size(log.path) < 1_000_000)
        // Caught up, the writer checkpoints: the database file takes the pages.
        try log.checkpoint()
        #expect(!log.wantsCheckpoint && Self.size(log.path) >= 4_500_000)
        // The next commit starts the write-ahead log again, cut back to SQLite's usual size.
        _ = try Self.append(["one more"], to: log, session: session)
        #expect(Self.size(log.path + "-wal") <= 1_000 * 4_096)
        // A writer that never catches up: the commit that passes 2,000 pages checkpoints.
        let most = try Self.append(Self.actions(12_000).map { "more " + $0 }, to: log, session: session)
        #expect(most > 8_000_000 && most <= 2_000 * 4_200 + 1_000_000, "the write-ahead log reached \(most) bytes")
        #expect(try log.checkIntegrity().isSound)
    }

    @Test("a recorder's writer checkpoints the log once it has caught up with a burst, and stops putting checkpoints off when it is done")
    func recorderCheckpointsOnceCaughtUp() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("burst.rewind")
        let log = try EventLog(path: path)
        var configuration = RecorderConfiguration<Int, String>()
        // Retention's trims checkpoint too.
        configuration.retention = nil
        configuration.batchSize = 500
        let recorder = Recorder<Int, String>(log: log, app: AppIdentity(id: "app"), configuration: configuration)
        let store = Store(initialState: 0, reducer: Reducer { count, _ in count += 1 }, middleware: recorder.middleware)
        // 4.5 MB, about 6.3 MB of the write-ahead log: past SQLite's 1,000 pages, short of the
        // 2,000 at which a commit checkpoints while a recorder puts it off.
        let actions = Self.actions(4_500)
        for action in actions { store.dispatch(action) }
        try await recorder.flush()
        // However the burst went, the writer catches up after it and checkpoints everything:
        // the database file takes the pages (SQLite's own checkpoint at 1,000 pages would have
        // left it about 4 MB).
        let deadline = ContinuousClock.now + .seconds(60)
        while log.wantsCheckpoint || Self.size(path) < 4_500_000, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(!log.wantsCheckpoint && Self.size(path) >= 4_500_000, "the database file is \(Self.size(path)) bytes")
        store.dispatch("one more")
        try await recorder.flush()
        #expect(Self.size(path + "-wal") <= 1_000 * 4_096)
        try await recorder.close()
        let deferring = log.checkpoints.deferring.load(ordering: .relaxed)
        #expect(!deferring)
        #expect(try log.seqRange()?.count == actions.count + 1)
        #expect(try log.checkIntegrity().isSound)
    }
}
