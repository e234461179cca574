import Dispatch
import Foundation
import Rewind
import RewindExamples
import RewindLog
import RewindTestSupport
import Testing

/// What starting to record costs the thread that binds the recorder (an app's main thread at
/// launch): nothing on disk. The writer thread begins the session.
@Suite("Recording starts off the binding thread")
struct RecorderLaunchTests {
    @Test("a store that does not answer delays neither the store's creation nor its first dispatches; the session and its actions arrive once it answers")
    func bindingDoesNotWait() throws {
        let log = MemoryLog()
        log.isStalled.store(true, ordering: .releasing)
        // The test lets it answer once it has checked; it answers after 30 s whatever happens,
        // so that the old behaviour (the session written on the binding thread) fails the
        // bound below instead of hanging. The bound is far from both: a loaded machine's
        // dispatches do not reach it, a binding that waits for the store passes it.
        DispatchQueue.global().asyncAfter(deadline: .now() + 30) { log.isStalled.store(false, ordering: .releasing) }
        let failures = Recorded<RecorderFailure<ShopAction>>()
        var configuration = RecorderConfiguration<ShopState, ShopAction>()
        configuration.onFailure = { failures.append($0) }
        configuration.stallLimit = .seconds(60)
        let app = AppIdentity(id: "com.example.shop")
        let recorder = Recorder<ShopState, ShopAction>(into: RecordingDestination(log), app: app, configuration: configuration)

        let clock = ContinuousClock()
        let began = clock.now
        let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
        for index in 0..<10 { store.dispatch(.cart(.applyDiscount(code: "L\(index)"))) }
        let elapsed = clock.now - began
        #expect(elapsed < .seconds(20), "binding and 10 dispatches took \(elapsed) while the store did not answer")
        #expect(try log.sessions().isEmpty, "nothing written yet: the store has not answered")
        log.isStalled.store(false, ordering: .releasing)

        // `session` waits for the writer to have begun it; flush, for the actions too.
        let session = try #require(recorder.session)
        try recorder.flush()
        try recorder.close()
        #expect(failures.all.isEmpty, "\(failures.all)")
        #expect(try log.sessions().map(\.id) == [session.id])
        #expect(try log.sessions().map(\.eventCount) == [10])
        #expect(try log.restoredState(app: app, reducer: Shop.reducer) == store.state)
    }

    @Test("a session that cannot begin is reported from the writer thread, flush throws it, and the actions meanwhile are a gap once it can")
    func beginFails() throws {
        let log = MemoryLog()
        log.isFailing.store(true, ordering: .releasing)
        let failures = Recorded<RecorderFailure<ShopAction>>()
        var configuration = RecorderConfiguration<ShopState, ShopAction>()
        configuration.onFailure = { failures.append($0) }
        let app = AppIdentity(id: "com.example.shop")
        let recorder = Recorder<ShopState, ShopAction>(into: RecordingDestination(log), app: app, configuration: configuration)
        let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
        #expect(recorder.session == nil)
        #expect(throws: EventLogError.self) { try recorder.flush() }
        #expect(failures.all.first?.unrecorded.isEmpty == true, "the first report is the session's: no action lost yet")

        store.dispatch(.cart(.clear))
        #expect(throws: EventLogError.self) { try recorder.flush() }
        log.isFailing.store(false, ordering: .releasing)
        store.dispatch(.cart(.applyDiscount(code: "BACK")))
        try recorder.flush()
        try recorder.close()
        #expect(try log.sessions().count >= 1)
        #expect(try log.gaps().map(\.lost).reduce(0, +) >= 1, "the action dispatched while it could not begin is a gap")
    }
}

/// `Recorder(at:)`: the writer thread opens the log file too.
@Suite("Recording into a file the writer opens")
struct RecorderAtTests {
    static let app = AppIdentity(id: "com.example.shop")

    /// The default configuration, its failures kept.
    static func reportingFailures() -> (RecorderConfiguration<ShopState, ShopAction>, Recorded<RecorderFailure<ShopAction>>) {
        let failures = Recorded<RecorderFailure<ShopAction>>()
        var configuration = RecorderConfiguration<ShopState, ShopAction>()
        configuration.onFailure = { failures.append($0) }
        return (configuration, failures)
    }

    @Test("Recorder(at:) creates the log on the writer thread and records into it; the recorder closes it")
    func records() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("shop.rewind")
        let recorder = Recorder<ShopState, ShopAction>(at: path, app: Self.app)
        let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
        for index in 0..<25 { store.dispatch(.cart(.applyDiscount(code: "A\(index)"))) }
        try recorder.flush()
        #expect(recorder.log?.path == path)
        try recorder.close()
        let log = try EventLog(path: path, mode: .readOnly)
        #expect(try log.sessions().map(\.eventCount) == [25])
        #expect(try log.restoredState(app: Self.app, reducer: Shop.reducer) == store.state)
    }

    @Test("a log that cannot be opened is reported, the app runs on, and once it can be, recording starts with the loss as a gap")
    func cannotOpenYet() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("later/shop.rewind")   // its folder does not exist yet
        let (configuration, failures) = Self.reportingFailures()
        let recorder = Recorder<ShopState, ShopAction>(at: path, app: Self.app, configuration: configuration)
        let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
        store.dispatch(.cart(.clear))
        store.dispatch(.cart(.applyDiscount(code: "LOST")))
        #expect(throws: EventLogError.self) { try recorder.flush() }
        #expect(!failures.all.isEmpty)

        try FileManager.default.createDirectory(atPath: folder.file("later"), withIntermediateDirectories: true)
        store.dispatch(.cart(.applyDiscount(code: "KEPT")))
        try recorder.flush()
        try recorder.close()
        let log = try EventLog(path: path, mode: .readOnly)
        #expect(try log.gaps().map(\.lost).reduce(0, +) == 2, "the two actions dispatched before it could open")
        #expect(try log.sessions().map(\.eventCount).reduce(0, +) == 1)
    }

    @Test("a log from a newer Rewind is never written: the failure names it, the file is unchanged, and the app runs on")
    func newerLog() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("future.rewind")
        try EventLog(path: path).close()
        try markAsNewerSchema(path, version: 42)
        let before = fileBytes(path)
        let (configuration, failures) = Self.reportingFailures()
        let recorder = Recorder<ShopState, ShopAction>(at: path, app: Self.app, configuration: configuration)
        let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
        store.dispatch(.cart(.clear))
        #expect(throws: EventLogError.newerSchema(path: path, found: 42, supported: EventLog.latestSchemaVersion)) { try recorder.flush() }
        #expect(failures.all.first?.error == .newerSchema(path: path, found: 42, supported: EventLog.latestSchemaVersion))
        try? recorder.close()
        #expect(fileBytes(path) == before)
    }
}
