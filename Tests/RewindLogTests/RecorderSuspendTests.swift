import Foundation
import Rewind
import RewindExamples
@testable import RewindLogCore
@testable import RewindSQLite
import RewindTestSupport
import Synchronization
import Testing

/// `suspend()` / `resume()`: a suspended app holds no session lock (on iOS, a suspended app
/// holding a lock on a file in a shared container is killed), loses nothing dispatched in the
/// background, and leaves a session ended `suspended` for the next launch to read.
@Suite("Recorder: suspension")
struct RecorderSuspendTests {
    static let app = AppIdentity(id: "com.example.shop")

    /// The shop actions a test dispatches: each changes the cart.
    static func adding(_ product: String, _ quantity: Int = 1) -> ShopAction {
        .cart(.add(productID: product, quantity: quantity))
    }

    static func lockFolderExists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: SessionLock.folder(forLog: path))
    }

    static func initialState(of session: LogSession, in log: EventLog) throws -> ShopState {
        let snapshot = try #require(try log.snapshot(session: session.id, atOrBefore: session.baseSeq))
        return try snapshot.decodeState(as: ShopState.self, codec: JSONPayloadCodec(), path: log.path)
    }

    @Test("suspend writes what is buffered, ends the session as suspended and holds no lock; after resume the next action begins a session from the live state")
    func suspendAndResume() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("shop.rewind")
        let recorder = Recorder<ShopState, ShopAction>(into: .file(path), app: Self.app)
        let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
        for product in ["tea", "mug", "tea", "pot", "cup"] { store.dispatch(Self.adding(product)) }
        try recorder.flush()
        #expect(Self.lockFolderExists(path), "a live session holds its lock")

        try recorder.suspend()
        let atSuspension = store.state
        let reader = try EventLog(path: path, mode: .readOnly)
        let first = try #require(try reader.sessions().first)
        #expect(try reader.sessions().count == 1)
        #expect(first.ending?.kind == .suspended)
        #expect(first.ending?.seq == 5, "ended at its last action")
        #expect(!Self.lockFolderExists(path), "nothing beside the log is locked while suspended")
        #expect(recorder.session == nil)

        // Dispatched in the background: waits, written by nothing until asked.
        store.dispatch(Self.adding("lid", 2))
        store.dispatch(.cart(.applyDiscount(code: "BACK")))
        Thread.sleep(forTimeInterval: 0.4)  // four times the default buffering delay
        #expect(try reader.sessions().count == 1, "nothing written while suspended")
        #expect(!Self.lockFolderExists(path))

        // A second writer meanwhile sees an ended session, not a dead one.
        let other = try EventLog(path: path)
        let otherSession = try other.beginSession(app: AppIdentity(id: "com.example.widget"), codec: JSONPayloadCodec(), initialState: 0)
        try other.endSession(otherSession.id)
        #expect(try reader.session(first.id).ending?.kind == .suspended)

        recorder.resume()
        try recorder.flush()
        let sessions = try reader.sessions()
        #expect(sessions.count == 3)
        let resumed = try #require(sessions.last)
        #expect(resumed.app.id == Self.app.id)
        #expect(resumed.ending == nil, "live again")
        #expect(resumed.eventCount == 2, "the actions dispatched while suspended, in the session they began")
        #expect(try Self.initialState(of: resumed, in: reader) == atSuspension, "from the state before the first of them")
        #expect(Self.lockFolderExists(path))
        #expect(recorder.session?.id == resumed.id)

        try recorder.close()
        #expect(try reader.session(resumed.id).ending?.kind == .closed)
        var cursor = reader.events(EventFilter(session: resumed.id))
        let events = try cursor.collect()
        let replayed = try events.reduce(into: try Self.initialState(of: resumed, in: reader)) { state, event in
            Shop.reducer(&state, try event.decodeAction(as: ShopAction.self, codec: JSONPayloadCodec(), path: path))
        }
        #expect(replayed == store.state, "the two sessions together replay to the live state")
    }

    @Test("while suspended, a flush writes what waits in a session that ends suspended again: no lock between writes")
    func flushWhileSuspended() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("shop.rewind")
        let recorder = Recorder<ShopState, ShopAction>(into: .file(path), app: Self.app)
        let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
        store.dispatch(Self.adding("tea"))
        try await recorder.suspend()
        let beforeBackground = store.state
        for product in ["mug", "pot", "cup"] { store.dispatch(Self.adding(product)) }
        try await recorder.flush()

        let reader = try EventLog(path: path, mode: .readOnly)
        let sessions = try reader.sessions()
        #expect(sessions.map { $0.ending?.kind } == [.suspended, .suspended])
        #expect(sessions.map(\.eventCount) == [1, 3])
        #expect(try Self.initialState(of: sessions[1], in: reader) == beforeBackground)
        #expect(!Self.lockFolderExists(path), "the background write let go of its session too")

        // Suspending again holds nothing more; resuming goes on from the live state.
        try await recorder.suspend()
        recorder.resume()
        let afterBackground = store.state
        store.dispatch(Self.adding("lid"))
        try await recorder.close()
        let all = try reader.sessions()
        #expect(all.map { $0.ending?.kind } == [.suspended, .suspended, .closed])
        #expect(all.map(\.eventCount) == [1, 3, 1])
        #expect(try Self.initialState(of: all[2], in: reader) == afterBackground)
    }

    @Test("a flush while suspended returns once the session it wrote has ended, not between its commit and its end")
    func flushReturnsAfterTheEnding() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("shop.rewind")
        let recorder = Recorder<ShopState, ShopAction>(into: .file(path), app: Self.app)
        let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
        store.dispatch(Self.adding("tea"))
        try recorder.suspend()
        // Open before the loop, so that each read follows its flush at once: the writer ends a
        // suspended write's session just after committing it, and a flush woken by the commit
        // alone returned in between (read here, the session had no ending yet).
        let reader = try EventLog(path: path, mode: .readOnly)
        for round in 1...60 {
            store.dispatch(Self.adding("p\(round)"))
            try recorder.flush()
            let last = try #require(try reader.sessions().last)
            #expect(last.ending?.kind == .suspended && last.eventCount == 1, "round \(round): \(String(describing: last.ending))")
            if last.ending == nil { break }
        }
        #expect(try reader.sessions().count == 61)
        try recorder.close()
    }

    @Test("a flush beside a suspension returns, never waiting on an ending that has come: every round's session ends suspended")
    func flushBesideSuspend() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("shop.rewind")
        let recorder = Recorder<ShopState, ShopAction>(into: .file(path), app: Self.app)
        let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
        store.dispatch(Self.adding("tea"))
        try recorder.flush()
        let reader = try EventLog(path: path, mode: .readOnly)
        for round in 1...40 {
            recorder.resume()
            store.dispatch(Self.adding("p\(round)"))
            // The suspension on another thread while this one flushes: the flush comes before it,
            // while it finishes (and then waits for its ending) or after it; each returns.
            let suspended = DispatchSemaphore(value: 0)
            let failure = Mutex<EventLogError?>(nil)
            DispatchQueue.global().async {
                do throws(EventLogError) { try recorder.suspend() } catch { failure.withLock { $0 = error } }
                suspended.signal()
            }
            try recorder.flush()
            #expect(suspended.wait(timeout: .now() + 30) == .success, "round \(round): the suspension did not return")
            #expect(failure.withLock { $0 } == nil)
            // After a flush right after it: returns at once, nothing to write or end.
            try recorder.flush()
            let last = try #require(try reader.sessions().last)
            // (The first round's session is the one "tea" began.)
            #expect(last.ending?.kind == .suspended && last.eventCount == (round == 1 ? 2 : 1), "round \(round): \(String(describing: last.ending))")
        }
        #expect(try reader.sessions().count == 40)
        try recorder.close()
    }

    @Test("an action under way on the store's thread as suspend() ends the session is waited for and written in it, not lost")
    func suspendWaitsForTheActionUnderWay() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("shop.rewind")
        let failures = Recorded<RecorderFailure<ShopAction>>()
        var configuration = RecorderConfiguration<ShopState, ShopAction>()
        configuration.onFailure = { failures.append($0) }
        let recorder = Recorder<ShopState, ShopAction>(into: .file(path), app: Self.app, configuration: configuration)
        let tap = recorder.tap(initialState: ShopState())
        var state = ShopState()
        tap.record(Self.adding("tea"), from: ActionSource(), reducing: &state) { Shop.reducer(&$0, Self.adding("tea")) }
        try recorder.flush()

        // The store is inside an action (its reducer runs) when the app goes to the background
        // and a detached task suspends the recorder.
        tap.willReduce(Self.adding("mug"), from: ActionSource(), state: state)
        let returned = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? recorder.suspend()
            returned.signal()
        }
        #expect(returned.wait(timeout: .now() + 0.3) == .timedOut, "the session waits for the action under way")
        Shop.reducer(&state, Self.adding("mug"))
        tap.didReduce(Self.adding("mug"), from: ActionSource(), state: state)
        #expect(returned.wait(timeout: .now() + 10) == .success, "suspend() returned once the action was handed off")

        let reader = try EventLog(path: path, mode: .readOnly)
        let first = try #require(try reader.sessions().first)
        #expect(first.ending?.kind == .suspended)
        #expect(first.eventCount == 2, "the action under way is in the session it began in")
        let afterMug = state
        recorder.resume()
        tap.record(Self.adding("pot"), from: ActionSource(), reducing: &state) { Shop.reducer(&$0, Self.adding("pot")) }
        try recorder.close()
        let sessions = try reader.sessions()
        #expect(sessions.map(\.eventCount) == [2, 1])
        #expect(try Self.initialState(of: sessions[1], in: reader) == afterMug)
        #expect(try reader.gaps(session: nil).isEmpty)
        #expect(failures.all.isEmpty)
    }

    @Test(
        "an action still under way past the wait (suspend() inside it), or with no hang watchdog, is a gap of the suspended session, reported; recording goes on",
        arguments: [Duration?.none, .milliseconds(600)]
    )
    func actionPastTheWaitIsAGap(hangLimit: Duration?) throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("shop.rewind")
        let failures = Recorded<RecorderFailure<ShopAction>>()
        var configuration = RecorderConfiguration<ShopState, ShopAction>()
        configuration.hangLimit = hangLimit
        configuration.onFailure = { failures.append($0) }
        let recorder = Recorder<ShopState, ShopAction>(into: .file(path), app: Self.app, configuration: configuration)
        let tap = recorder.tap(initialState: ShopState())
        var state = ShopState()
        tap.record(Self.adding("tea"), from: ActionSource(), reducing: &state) { Shop.reducer(&$0, Self.adding("tea")) }

        // Called from inside the action, on the store's thread: without a bound on its wait,
        // it would wait for itself.
        tap.willReduce(Self.adding("mug"), from: ActionSource(), state: state)
        let clock = ContinuousClock()
        let started = clock.now
        try recorder.suspend()
        if let hangLimit { #expect(clock.now - started >= hangLimit / 2 - .milliseconds(50), "it waited for the action first") }
        Shop.reducer(&state, Self.adding("mug"))
        tap.didReduce(Self.adding("mug"), from: ActionSource(), state: state)
        let afterMug = state
        recorder.resume()
        tap.record(Self.adding("pot"), from: ActionSource(), reducing: &state) { Shop.reducer(&$0, Self.adding("pot")) }

        let error = try #require(throws: EventLogError.self) { try recorder.flush() }
        #expect(error.description.contains("suspend()"), "the failure says what happened: \(error)")
        try recorder.close()
        #expect(failures.all.flatMap(\.unrecorded).map(\.action) == [Self.adding("mug")])

        let reader = try EventLog(path: path, mode: .readOnly)
        let sessions = try reader.sessions()
        #expect(sessions.map(\.eventCount) == [1, 1])
        #expect(sessions.map { $0.ending?.kind } == [.suspended, .closed])
        let gaps = try reader.gaps(session: sessions[0].id)
        #expect(gaps.map(\.lost) == [1])
        #expect(gaps.first?.cases == ["cart.add": 1])
        #expect(gaps.first?.afterSeq == sessions[0].seqRange?.upperBound, "after the suspended session's last event")
        #expect(gaps.first?.resumedSession == sessions[1].id)
        #expect(try Self.initialState(of: sessions[1], in: reader) == afterMug, "the next session begins from the state after it")
    }

    @Test("a store dispatching on one thread while another suspends and resumes, over and over: every action is written, no gap, no failure")
    func suspendBesideDispatch() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("shop.rewind")
        let failures = Recorded<RecorderFailure<ShopAction>>()
        var configuration = RecorderConfiguration<ShopState, ShopAction>()
        configuration.onFailure = { failures.append($0) }
        configuration.retention = nil  // every session kept, to be replayed below
        let recorder = Recorder<ShopState, ShopAction>(into: .file(path), app: Self.app, configuration: configuration)
        let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
        let stop = Atomic<Bool>(false)
        let dispatched = Atomic<Int>(0)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var index = 0
            while !stop.load(ordering: .acquiring) {
                store.dispatch(Self.adding("p\(index % 7)"))
                index += 1
                dispatched.store(index, ordering: .releasing)
                // Now and then a pause, as between an app's actions: a suspension then finds
                // the store idle, or in the middle of one.
                if index % 4 == 0 { usleep(20) }
            }
            done.signal()
        }
        // Each suspension waits for an action dispatched since the last one: on a loaded
        // machine this loop could otherwise run through before the dispatching thread is
        // scheduled at all (once in CI: every action in two sessions). The deadline keeps a
        // dispatch that never returns from hanging the test; the counts below then fail.
        let deadline = ContinuousClock.now + .seconds(60)
        for _ in 0..<150 {
            let seen = dispatched.load(ordering: .acquiring)
            while dispatched.load(ordering: .acquiring) == seen, ContinuousClock.now < deadline { usleep(50) }
            try recorder.suspend()
            recorder.resume()
        }
        stop.store(true, ordering: .releasing)
        done.wait()
        try recorder.close()
        let reader = try EventLog(path: path, mode: .readOnly)
        let sessions = try reader.sessions()
        #expect(try reader.gaps(session: nil).isEmpty)
        #expect(failures.all.isEmpty)
        #expect(sessions.map(\.eventCount).reduce(0, +) == dispatched.load(ordering: .acquiring))
        #expect(sessions.count > 2, "the suspensions ended sessions while the store dispatched")
        // Each session begins where the one before it ended, and the last ends at the store's state.
        var ends: [ShopState] = []
        for session in sessions {
            var cursor = reader.events(EventFilter(session: session.id))
            ends.append(try cursor.collect().reduce(into: try Self.initialState(of: session, in: reader)) { state, event in
                Shop.reducer(&state, try event.decodeAction(as: ShopAction.self, codec: JSONPayloadCodec(), path: path))
            })
        }
        for index in sessions.indices.dropFirst() {
            #expect(try Self.initialState(of: sessions[index], in: reader) == ends[index - 1], "session \(sessions[index].id) begins where \(sessions[index - 1].id) ended")
        }
        #expect(ends.last == store.state)
    }

    @Test("while suspended, a full buffer is written rather than waited on, in a session that ends suspended again")
    func fullBufferWhileSuspended() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("shop.rewind")
        var configuration = RecorderConfiguration<ShopState, ShopAction>()
        configuration.bufferCapacity = 4
        configuration.stallLimit = .seconds(60)  // a wait the writer never answered would fail below, not be let go
        let recorder = Recorder<ShopState, ShopAction>(into: .file(path), app: Self.app, configuration: configuration)
        let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
        store.dispatch(Self.adding("tea"))
        try recorder.suspend()
        let clock = ContinuousClock()
        let started = clock.now
        for index in 0..<10 { store.dispatch(Self.adding("p\(index)")) }
        #expect(clock.now - started < .seconds(30), "dispatch waited for a writer that does not write")
        let reader = try EventLog(path: path, mode: .readOnly)
        let deadline = clock.now + .seconds(30)
        while try Self.lockFolderExists(path) || (reader.sessions().dropFirst().map(\.eventCount).reduce(0, +)) < 6, clock.now < deadline {
            Thread.sleep(forTimeInterval: 0.02)
        }
        let background = try reader.sessions().dropFirst()
        #expect(background.map(\.eventCount).reduce(0, +) >= 6, "what filled the buffer was written")
        #expect(background.allSatisfy { $0.ending?.kind == .suspended })
        #expect(!Self.lockFolderExists(path))
        try recorder.close()
        #expect(try reader.sessions().dropFirst().map(\.eventCount).reduce(0, +) == 10, "and the rest at close")
    }

    @Test("closing while suspended writes what waits; suspending a closed recorder returns at once")
    func closeWhileSuspended() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("shop.rewind")
        let recorder = Recorder<ShopState, ShopAction>(into: .file(path), app: Self.app)
        let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
        store.dispatch(Self.adding("tea"))
        try recorder.suspend()
        store.dispatch(Self.adding("mug"))
        store.dispatch(Self.adding("pot"))
        try recorder.close()
        try recorder.suspend()
        recorder.resume()

        let reader = try EventLog(path: path, mode: .readOnly)
        let sessions = try reader.sessions()
        #expect(sessions.map { $0.ending?.kind } == [.suspended, .closed])
        #expect(sessions.map(\.eventCount) == [1, 2])
        #expect(!Self.lockFolderExists(path))
    }

    @Test("a suspension the log cannot take throws; the next one records the loss, then ends the session")
    func failingSuspension() throws {
        let log = MemoryLog()
        let failures = Recorded<RecorderFailure<ShopAction>>()
        var configuration = RecorderConfiguration<ShopState, ShopAction>()
        configuration.onFailure = { failures.append($0) }
        let recorder = Recorder<ShopState, ShopAction>(into: RecordingDestination(log), app: Self.app, configuration: configuration)
        let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
        store.dispatch(Self.adding("tea"))
        try recorder.flush()

        log.isFailing.store(true, ordering: .releasing)
        store.dispatch(Self.adding("mug"))
        #expect(throws: EventLogError.self) { try recorder.suspend() }
        #expect(try log.sessions().map { $0.ending?.kind } == [nil], "still open: its end could not be written")
        #expect(failures.all.flatMap(\.unrecorded).map(\.action) == [Self.adding("mug")])

        log.isFailing.store(false, ordering: .releasing)
        try recorder.suspend()
        let session = try #require(try log.sessions().first)
        #expect(session.ending?.kind == .suspended)
        #expect(try log.gaps(session: session.id).map(\.lost) == [1], "the action the failed write lost")

        recorder.resume()
        store.dispatch(Self.adding("pot"))
        try recorder.close()
        #expect(try log.sessions().map(\.eventCount) == [1, 1])
    }

    @Test("a resume while a suspend still waits for the disk: the suspend returns, holding nothing, and the next action records on")
    func resumeDuringSuspend() throws {
        let log = MemoryLog()
        let recorder = Recorder<ShopState, ShopAction>(into: RecordingDestination(log), app: Self.app)
        let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
        try recorder.flush()
        log.writeDelay.store(300, ordering: .relaxed)
        store.dispatch(Self.adding("tea"))
        let returned = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? recorder.suspend()
            returned.signal()
        }
        Thread.sleep(forTimeInterval: 0.1)
        recorder.resume()
        #expect(returned.wait(timeout: .now() + 10) == .success, "suspend() returned")
        log.writeDelay.store(0, ordering: .relaxed)
        #expect(try log.sessions().map { $0.ending?.kind } == [.suspended])
        store.dispatch(Self.adding("mug"))
        try recorder.close()
        #expect(try log.sessions().map(\.eventCount) == [1, 1])
    }

    @Test("an export holding a session that ended suspended is format 4, which older readers refuse by its version; it imports whole")
    func exportVersion() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("shop.rewind")
        let recorder = Recorder<ShopState, ShopAction>(into: .file(path), app: Self.app)
        let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
        store.dispatch(Self.adding("tea"))
        try recorder.flush()
        let live = URL(fileURLWithPath: folder.file("live.jsonl"))
        _ = try EventLog(path: path, mode: .readOnly).export(to: live)
        try recorder.suspend()
        let suspended = URL(fileURLWithPath: folder.file("suspended.jsonl"))
        _ = try EventLog(path: path, mode: .readOnly).export(to: suspended)
        try recorder.close()

        func header(_ url: URL) throws -> [String: Any] {
            let line = try #require(try String(contentsOf: url, encoding: .utf8).split(separator: "\n").first)
            return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(try header(live)["version"] as? Int == 2, "nothing in it needs more")
        #expect(try header(suspended)["version"] as? Int == 4)
        #expect(PortableLog.version == 4)
        let imported = try EventLog.importLog(from: suspended, to: folder.file("imported.rewind"))
        #expect(try imported.sessions().map { $0.ending?.kind } == [.suspended])
    }
}
