import Foundation
import Rewind
import RewindExamples
@testable import RewindLogCore
@testable import RewindSQLite
import RewindTestSupport
import Testing

/// One log file, several writers: each `EventLog` below is its own connection with its own
/// session locks, as another process's would be; the last test puts a lock in a real second
/// process and kills it.
@Suite("Shared log file")
struct SharedLogTests {
    static let app = AppIdentity(id: "com.example.shop")

    /// A recorder into its own connection to `path`, and a store bound to it.
    struct Writer {
        let log: EventLog
        let recorder: Recorder<ShopState, ShopAction>
        let store: Store<ShopState, ShopAction>
        let failures = Recorded<RecorderFailure<ShopAction>>()

        init(path: String, retention: Retention? = nil) throws {
            log = try EventLog(path: path)
            var configuration = RecorderConfiguration<ShopState, ShopAction>()
            configuration.retention = retention
            configuration.snapshotInterval = 10
            configuration.onFailure = { [failures] in failures.append($0) }
            recorder = Recorder(log: log, app: SharedLogTests.app, configuration: configuration)
            store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
        }

        func dispatch(_ count: Int, tag: String) {
            for index in 0..<count { store.dispatch(.cart(.applyDiscount(code: "\(tag)-\(index)"))) }
        }
    }

    @Test("retention in one writer never removes another writer's live session: every action it dispatches later is in its own session")
    func retentionKeepsLiveSession() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("shared.rewind")
        let idle = try Writer(path: path)
        idle.dispatch(1, tag: "idle")
        try idle.recorder.flush()
        let trimming = try Writer(path: path, retention: Retention(maxEvents: 50, checkEvery: 1))
        trimming.dispatch(300, tag: "busy")
        try trimming.recorder.flush()
        let idleSession = try #require(idle.recorder.session)
        let reader = try EventLog(path: path, mode: .readOnly)
        #expect(try reader.sessions().contains { $0.id == idleSession.id }, "the trim kept the idle writer's session")

        idle.dispatch(40, tag: "late")
        try idle.recorder.flush()
        #expect(idle.failures.all.isEmpty, "\(idle.failures.all.map(\.error))")
        let session = try reader.session(idleSession.id)
        #expect(session.eventCount == 41)
        var cursor = reader.events(EventFilter(session: session.id))
        let actions = try cursor.collect().map { event in try reader.decodeAction(of: event, as: ShopAction.self) }
        #expect(actions == [.cart(.applyDiscount(code: "idle-0"))] + (0..<40).map { .cart(.applyDiscount(code: "late-\($0)")) })
        var state = ShopState()
        for action in actions { Shop.reducer(&state, action) }
        #expect(state == idle.store.state)
        #expect(try reader.checkIntegrity().isSound)
    }

    @Test("session ids are never reused, even after retention deleted the newest session")
    func sessionIDsNeverReused() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("ids.rewind")
        let log = try EventLog(path: path)
        let first = try log.beginSession(app: Self.app, initialState: ShopState())
        let second = try log.beginSession(app: Self.app, initialState: ShopState())
        try log.endSession(second.id)
        for index in 0..<100 {
            let seqs = try log.append([EventRecord(ShopAction.cart(.clear), source: ActionSource())], to: first)
            if index % 10 == 9 { try log.appendSnapshot(ShopState(), to: first, after: try #require(seqs).upperBound) }
        }
        try log.trim(to: Retention(maxEvents: 20))
        #expect(try log.sessions().map(\.id) == [first.id], "the ended, emptied session went")
        let third = try log.beginSession(app: Self.app, initialState: ShopState())
        #expect(third.id == second.id + 1)
    }

    @Test("a clean close records the session's end and lets go of its lock; a resumed loss ends a session as resumed")
    func cleanEnding() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("ending.rewind")
        let writer = try Writer(path: path)
        writer.dispatch(5, tag: "a")
        try writer.recorder.flush()
        let session = try #require(writer.recorder.session)
        #expect(try writer.log.session(session.id).ending == nil, "live while recorded")
        let locks = try FileManager.default.contentsOfDirectory(atPath: SessionLock.folder(forLog: path))
        #expect(locks.count == 1)

        try writer.log.simulateFullDisk()
        writer.dispatch(3, tag: String(repeating: "x", count: 20_000))
        #expect(throws: EventLogError.self) { try writer.recorder.flush() }
        try writer.log.freeDiskSpace()
        writer.dispatch(2, tag: "b")
        try writer.recorder.flush()
        try writer.recorder.close()

        let sessions = try EventLog(path: path, mode: .readOnly).sessions()
        #expect(sessions.map { $0.ending?.kind } == [.resumed, .closed])
        #expect(sessions.map { $0.ending?.seq } == [5, 7])
        #expect(!FileManager.default.fileExists(atPath: SessionLock.folder(forLog: path)), "nothing is left beside the log")
    }

    @Test("a close while another writer holds the log past the busy timeout still ends the session as closed, not as a crash")
    func closeOutwaitsABusyLog() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("busy.rewind")
        let writer = try Writer(path: path)
        writer.dispatch(5, tag: "a")
        try writer.recorder.flush()
        let session = try #require(writer.recorder.session)
        // Held past one busy timeout (5 s): the ending's first try is refused as busy.
        let lock = try SQLiteWriteLock(path: path)
        let released = DispatchSemaphore(value: 0)
        DispatchQueue.global().asyncAfter(deadline: .now() + 6.5) {
            try? lock.release()
            released.signal()
        }
        let began = ContinuousClock.now
        try writer.recorder.close()
        released.wait()
        #expect(ContinuousClock.now - began > .seconds(5), "the lock was held while it closed")
        #expect(try EventLog(path: path, mode: .readOnly).session(session.id).ending?.kind == .closed)
        #expect(writer.failures.all.isEmpty)
    }

    @Test("a writer whose process stops is marked ended uncleanly by the next writer, at its last committed event; one whose lock another process holds is not")
    func uncleanEnding() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("crash.rewind")
        var dead: EventLog? = try EventLog(path: path)
        let session = try dead!.beginSession(app: Self.app, initialState: ShopState())
        let seqs = try dead!.append((0..<3).map { EventRecord(ShopAction.cart(.clear), source: ActionSource(), time: Date(timeIntervalSince1970: 1_000 + Double($0))) }, to: session)
        // The lock file stays; a second process takes the lock, as the writer's own would be
        // held while it lives.
        let lockFile = try #require(try FileManager.default.contentsOfDirectory(atPath: SessionLock.folder(forLog: path)).first)
        dead = nil
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        holder.arguments = ["--exclusive", "--no-fork", (SessionLock.folder(forLog: path) as NSString).appendingPathComponent(lockFile), "sleep", "60"]
        try holder.run()
        defer { if holder.isRunning { holder.terminate() } }
        // Wait until the other process holds it.
        let deadline = Date().addingTimeInterval(10)
        while !SessionLock.isHeld(log: path, session: String(lockFile.dropLast(5))), Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }

        let next = try EventLog(path: path)
        _ = try next.beginSession(app: Self.app, initialState: ShopState())
        #expect(try next.session(session.id).ending == nil, "its lock is held: live")

        kill(holder.processIdentifier, SIGKILL)
        holder.waitUntilExit()
        _ = try next.beginSession(app: Self.app, initialState: ShopState())
        #expect(try next.session(session.id).ending == SessionEnding(kind: .unclean, seq: try #require(seqs).upperBound, time: 1_002))
        #expect(!FileManager.default.fileExists(atPath: SessionLock.path(forLog: path, session: String(lockFile.dropLast(5)))))
    }

    @Test("a session that cannot begin (a full disk at launch) begins once there is room; what was dispatched meanwhile is a gap after its initial state")
    func beginAfterFullDisk() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("launch.rewind")
        let log = try EventLog(path: path)
        // An earlier session, so the new one's base seq is not 0.
        let earlier = try log.beginSession(app: Self.app, initialState: ShopState())
        try log.append((0..<4).map { _ in EventRecord(ShopAction.cart(.clear), source: ActionSource()) }, to: earlier)
        try log.endSession(earlier.id)
        try log.simulateFullDisk()
        let failures = Recorded<RecorderFailure<ShopAction>>()
        var configuration = RecorderConfiguration<ShopState, ShopAction>()
        configuration.onFailure = { failures.append($0) }
        let recorder = Recorder<ShopState, ShopAction>(log: log, app: Self.app, configuration: configuration)
        // A state too big for the pages the file has left (and random, so it does not deflate).
        var launched = ShopState()
        launched.cart.message = (0..<800).map { _ in UUID().uuidString }.joined()
        let store = Store(initialState: launched, reducer: Shop.reducer, middleware: recorder.middleware)
        #expect(recorder.session == nil)
        store.dispatch(.cart(.applyDiscount(code: "lost")))
        #expect(throws: EventLogError.diskFull(path: path)) { try recorder.flush() }
        #expect(failures.all.flatMap(\.unrecorded).count == 1)

        try log.freeDiskSpace()
        store.dispatch(.cart(.applyDiscount(code: "kept")))
        try recorder.flush()
        try recorder.close()
        let reader = try EventLog(path: path, mode: .readOnly)
        let sessions = try reader.sessions()
        #expect(sessions.count == 3)
        let gaps = try reader.gaps()
        #expect(gaps.count == 1)
        #expect(gaps.first?.session == sessions[1].id)
        #expect(gaps.first?.afterSeq == 4, "after the session's base seq, not 0")
        #expect(gaps.first?.lost == 1)
        #expect(gaps.first?.resumedSession == sessions[2].id)
        #expect(try reader.restoredState(app: Self.app, reducer: Shop.reducer) == store.state)
    }

    @Test("a session's first failed write is a gap after its base seq")
    func firstGapPosition() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("first.rewind")
        let log = try EventLog(path: path)
        let earlier = try log.beginSession(app: Self.app, initialState: ShopState())
        try log.append((0..<6).map { _ in EventRecord(ShopAction.cart(.clear), source: ActionSource()) }, to: earlier)
        try log.endSession(earlier.id)
        var configuration = RecorderConfiguration<ShopState, ShopAction>()
        configuration.onFailure = { _ in }
        let recorder = Recorder<ShopState, ShopAction>(log: log, app: Self.app, configuration: configuration)
        let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
        try log.simulateFullDisk()
        store.dispatch(.cart(.applyDiscount(code: String(repeating: "x", count: 20_000))))
        #expect(throws: EventLogError.self) { try recorder.flush() }
        try log.freeDiskSpace()
        try recorder.close()
        #expect(try log.gaps().map(\.afterSeq) == [6])
    }

    @Test("a copy of a log keeps its identity until a session is begun in it, then has its own; the original keeps its own")
    func copiesFork() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("original.rewind")
        let original = try EventLog(path: path)
        _ = try original.beginSession(app: Self.app, initialState: ShopState())
        let identity = try #require(try original.identity())
        try original.close()
        try FileManager.default.copyItem(atPath: path, toPath: folder.file("copy.rewind"))
        let copy = try EventLog(path: folder.file("copy.rewind"))
        #expect(try copy.identity() == identity, "a copy read, or opened, is the same log")
        _ = try copy.beginSession(app: Self.app, initialState: ShopState())
        let forked = try #require(try copy.identity())
        #expect(forked != identity)
        _ = try copy.beginSession(app: Self.app, initialState: ShopState())
        #expect(try copy.identity() == forked, "once its own, it stays so")
        let reopened = try EventLog(path: path)
        _ = try reopened.beginSession(app: Self.app, initialState: ShopState())
        #expect(try reopened.identity() == identity, "the original is recorded into as itself")
    }

    @Test("an export is of one moment: what another writer appends and trims while it reads is not in it, and it imports sound")
    func exportOfOneMoment() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("moment.rewind")
        let writer = try EventLog(path: path)
        let session = try writer.beginSession(app: Self.app, initialState: ShopState())
        for index in 1...60 {
            try writer.append([EventRecord(ShopAction.cart(.clear), source: ActionSource())], to: session)
            if index % 10 == 0 { try writer.appendSnapshot(ShopState(), to: session, after: Int64(index)) }
        }
        let reader = try EventLog(path: path, mode: .readOnly)
        try reader.readingConsistently { moment throws(EventLogError) in
            #expect(try moment.seqRange() == 1...60)
            // Meanwhile another connection writes and trims.
            try writer.append((0..<40).map { _ in EventRecord(ShopAction.cart(.clear), source: ActionSource()) }, to: session)
            try writer.appendSnapshot(ShopState(), to: session, after: 100)
            try writer.trim(to: Retention(maxEvents: 5))
            #expect(try writer.seqRange() == 61...100, "trimmed at the snapshot after seq 60")
            #expect(try moment.seqRange() == 1...60, "the moment's reader still sees what it began with")
            var cursor = moment.events(EventFilter(session: session.id), pageSize: 7)
            #expect(try cursor.collect().map(\.seq) == Array(1...60))
        }
        #expect(try reader.seqRange() == 61...100, "a plain read sees the trim")
        let url = URL(fileURLWithPath: folder.file("moment.jsonl"))
        try reader.export(to: url)
        #expect(try EventLog.importLog(from: url, to: folder.file("imported.rewind")).checkIntegrity().isSound)
    }

    @Test("a live session that retention emptied exports the snapshot it continues from, and the export imports sound")
    func exportEmptiedLiveSession() throws {
        let folder = try TemporaryDirectory()
        let log = try EventLog(path: folder.file("emptied.rewind"))
        let idle = try log.beginSession(app: Self.app, initialState: ShopState())
        try log.append((0..<10).map { _ in EventRecord(ShopAction.cart(.clear), source: ActionSource()) }, to: idle)
        try log.appendSnapshot(ShopState(), to: idle, after: 10)
        let busy = try log.beginSession(app: Self.app, initialState: ShopState())
        try log.append((0..<50).map { _ in EventRecord(ShopAction.cart(.clear), source: ActionSource()) }, to: busy)
        try log.appendSnapshot(ShopState(), to: busy, after: 60)
        try log.trim(to: Retention(maxEvents: 5))
        #expect(try log.session(idle.id).eventCount == 0, "its events went; it continues from its snapshot at 10")
        #expect(try log.snapshotIndex(session: idle.id).map(\.seq) == [10])
        let url = URL(fileURLWithPath: folder.file("emptied.jsonl"))
        try log.export(to: url)
        let imported = try EventLog.importLog(from: url, to: folder.file("imported.rewind"))
        #expect(try imported.checkIntegrity().isSound)
        #expect(try imported.snapshotIndex(session: idle.id).map(\.seq) == [10])
    }

    @Test("an app whose latest session retention emptied of events restores the state of the snapshot it kept")
    func restoreEmptiedSession() throws {
        let folder = try TemporaryDirectory()
        let log = try EventLog(path: folder.file("emptied.rewind"))
        let widget = AppIdentity(id: "com.example.shop.widget")
        var kept = ShopState()
        kept.cart.message = "the state at seq 10"
        let idle = try log.beginSession(app: widget, initialState: ShopState())
        try log.append((0..<10).map { _ in EventRecord(ShopAction.cart(.clear), source: ActionSource()) }, to: idle)
        try log.appendSnapshot(kept, to: idle, after: 10)
        let busy = try log.beginSession(app: Self.app, initialState: ShopState())
        try log.append((0..<50).map { _ in EventRecord(ShopAction.cart(.clear), source: ActionSource()) }, to: busy)
        try log.appendSnapshot(ShopState(), to: busy, after: 60)
        try log.trim(to: Retention(maxEvents: 5))
        #expect(try log.session(idle.id).eventCount == 0 && log.session(idle.id).seqRange == nil)
        #expect(try log.restoredState(app: widget, reducer: Shop.reducer) == kept)
    }

    @Test("by default a recorder never runs the app's own init(from:) to find a shape: a decoder that traps on placeholders is recorded as opaque")
    func noProbingByDefault() throws {
        let folder = try TemporaryDirectory()
        let log = try EventLog(path: folder.file("probe.rewind"))
        let recorder = Recorder<TrapsOnPlaceholders, ShopAction>(log: log, app: Self.app)
        let store = Store(initialState: TrapsOnPlaceholders(url: URL(fileURLWithPath: "/")), reducer: Reducer { _, _ in }, middleware: recorder.middleware)
        store.dispatch(.cart(.clear))
        try recorder.close()
        let shapes = try log.shapes(session: try #require(recorder.session).id)
        guard case .opaque = shapes.state else { Issue.record("\(String(describing: shapes.state))"); return }
    }
}

/// A state whose decoding trusts its input, as app code does: a placeholder `""` traps.
private struct TrapsOnPlaceholders: Codable, Sendable {
    var url: URL

    init(url: URL) {
        self.url = url
    }

    init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        precondition(!text.isEmpty, "a stored URL is never empty")
        url = URL(fileURLWithPath: text)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(url.absoluteString)
    }
}
