import Dispatch
import Foundation
import Rewind
import RewindExamples
import RewindLog
import RewindTestSupport
import Testing

/// `Recorder.tap(initialState:)`: the recorder behind a store that is not Rewind's, here the
/// view model of the "Adopting Rewind in an app" recipe (`ShopModel`).
@Suite("Recording a store that is not Rewind's")
struct RecorderTapTests {
    static let app = AppIdentity(id: "com.example.shop")

    @Test("every action in the store's order with its send site, snapshots as configured, and the session replays to the live state")
    func recordsLikeTheMiddleware() async throws {
        let folder = try TemporaryDirectory()
        var configuration = RecorderConfiguration<ShopState, ShopAction>()
        configuration.snapshotInterval = 100
        let recorder = Recorder<ShopState, ShopAction>(at: folder.file("shop.rewind"), app: Self.app, configuration: configuration)
        let model = ShopModel(recorder: recorder)
        let session = await Shop.sessionActions(count: 1_000, seed: 7)
        for (index, dispatched) in session.enumerated() {
            if index % 2 == 0 {
                model.send(dispatched.action)
            } else {
                model.send(dispatched.action, file: dispatched.source.file, function: dispatched.source.function, line: dispatched.source.line, column: dispatched.source.column)
            }
        }
        try await recorder.close()

        let log = try EventLog(path: folder.file("shop.rewind"), mode: .readOnly)
        var events = log.events()
        let logged = try events.collect()
        #expect(logged.count == 1_000)
        #expect(logged.map(\.actionCase) == session.map { ActionCaseName.of($0.action) })
        #expect(logged[0].source.file == "RewindLogTests/RecorderTapTests.swift" && logged[0].source.function == "recordsLikeTheMiddleware()")
        #expect(logged[1].source.file == session[1].source.file && logged[1].source.line == session[1].source.line)
        let session1 = try #require(try log.sessions().first?.id)
        #expect(try log.snapshotIndex(session: session1).count >= 5, "a snapshot every 100 actions or further apart, as configured")
        #expect(try log.restoredState(app: Self.app, reducer: Shop.reducer) == model.state)
    }

    /// A state whose storage a test can ask about.
    struct BoxedState: Codable, Sendable, Equatable {
        final class Box: Codable, Sendable, Equatable {
            let values: [Int]
            init(_ values: [Int]) { self.values = values }
            static func == (lhs: Box, rhs: Box) -> Bool { lhs.values == rhs.values }
        }
        var box = Box([])
    }

    @Test("neither form keeps the state from before the reducer while it runs: the store mutates storage it alone holds")
    func noCopyOnWrite() throws {
        let recorder = Recorder<BoxedState, Int>(into: RecordingDestination(MemoryLog()), app: Self.app)
        let tap = recorder.tap(initialState: BoxedState())
        var state = BoxedState()
        for value in 0..<50 {
            let unique = tap.record(value, from: ActionSource(), reducing: &state) { state in
                isKnownUniquelyReferenced(&state.box)
            }
            #expect(unique, "action \(value): the tap held the state before it")
            state.box = .init(state.box.values + [value])
            // The two-call form, as a middleware with a getter uses it.
            tap.willReduce(value, from: ActionSource(), state: state)
            #expect(isKnownUniquelyReferenced(&state.box), "action \(value): willReduce kept the state")
            tap.didReduce(value, from: ActionSource(), state: state)
        }
        try recorder.close()
    }

    @Test("redaction applies: a withheld action keeps its case and source, its payload never reaches the log")
    func redacts() throws {
        let log = MemoryLog()
        var configuration = RecorderConfiguration<ShopState, ShopAction>()
        configuration.redaction = Redaction { action in
            if case .cart(.applyDiscount) = action { return .withhold }
            return .keep
        }
        let recorder = Recorder<ShopState, ShopAction>(into: RecordingDestination(log), app: Self.app, configuration: configuration)
        let model = ShopModel(recorder: recorder)
        model.send(.cart(.add(productID: "p\(1)", quantity: 1)))
        model.send(.cart(.applyDiscount(code: "SECRET")))
        model.send(.cart(.clear))
        try recorder.close()
        var cursor = log.events()
        let events = try cursor.collect()
        #expect(events.map(\.actionCase) == ["cart.add", "cart.applyDiscount", "cart.clear"])
        #expect(events[1].payload == nil && events[1].redaction != nil, "withheld: its case and source only")
        #expect(!events.contains { ($0.payload.map { String(decoding: $0, as: UTF8.self) } ?? "").contains("SECRET") })
    }

    @Test("a write that fails is reported and becomes a gap; recording resumes in a session that starts from the state before the next action")
    func resumesAfterFailure() throws {
        let log = MemoryLog()
        let failures = Recorded<RecorderFailure<ShopAction>>()
        var configuration = RecorderConfiguration<ShopState, ShopAction>()
        configuration.onFailure = { failures.append($0) }
        let recorder = Recorder<ShopState, ShopAction>(into: RecordingDestination(log), app: Self.app, configuration: configuration)
        let model = ShopModel(recorder: recorder)
        model.send(.cart(.add(productID: "p\(1)", quantity: 1)))
        try recorder.flush()
        log.isFailing.store(true, ordering: .releasing)
        model.send(.cart(.add(productID: "p\(2)", quantity: 1)))
        #expect(throws: EventLogError.self) { try recorder.flush() }
        log.isFailing.store(false, ordering: .releasing)
        // The writer asks for the live state; the next action's `before` is it.
        for index in 3...5 { model.send(.cart(.add(productID: "p\(index)", quantity: 1))) }
        try recorder.close()
        #expect(failures.all.flatMap(\.unrecorded).map(\.action) == [.cart(.add(productID: "p\(2)", quantity: 1))])
        #expect(try log.gaps().map(\.lost) == [1])
        let sessions = try log.sessions()
        #expect(sessions.count == 2)
        #expect(try log.restoredState(app: Self.app, reducer: Shop.reducer) == model.state, "the new session starts from the live state")
    }

    @Test("the tap keeps its recorder alive; releasing the store has what is buffered committed")
    func ownership() throws {
        let log = MemoryLog()
        weak var released: Recorder<ShopState, ShopAction>?
        do {
            var recorder: Recorder<ShopState, ShopAction>? = Recorder(into: RecordingDestination(log), app: Self.app)
            released = recorder
            var model: ShopModel? = ShopModel(recorder: recorder!)
            recorder = nil
            for index in 1...50 { model?.send(.cart(.add(productID: "p\(index)", quantity: 1))) }
            #expect(released != nil, "held by the tap")
            model = nil
        }
        #expect(released == nil, "released with the store")
        // The release does not wait for the writer (RecorderAsyncTests); its last commit lands soon after.
        let deadline = ContinuousClock.now + .seconds(30)
        while try log.sessions().map(\.eventCount) != [50], ContinuousClock.now < deadline { usleep(10_000) }
        #expect(try log.sessions().map(\.eventCount) == [50])
    }

    // A release build does not check, and what overlapping calls do there is undefined: the
    // check is a debug build's only.
    #if DEBUG
    /// The trap is the test's point: Swift's backtracer, left on, spent seconds of CPU
    /// symbolicating the debug binary after each.
    static let noBacktracer = ["SWIFT_BACKTRACE": "enable=no"]

    @Test("two producers at once stop a debug build with the tap's message")
    func catchesASecondProducer() async throws {
        let folder = try TemporaryDirectory()
        let result = try await run(builtProduct("rewind-stress"), ["tap-overlap", "--log", folder.file("overlap.rewind"), "--seconds", "20"], in: folder.path, environment: Self.noBacktracer)
        #expect(result.status != 0)
        #expect(result.standardError.contains("RecorderTap<ShopState, ShopAction> was called from two threads at once"), "\(result.standardError)")
    }

    @Test("two stores dispatching through one recorder's middleware at once stop a debug build with the middleware's message")
    func catchesASecondStore() async throws {
        let folder = try TemporaryDirectory()
        let result = try await run(builtProduct("rewind-stress"), ["tap-overlap", "--stores", "--log", folder.file("overlap.rewind"), "--seconds", "20"], in: folder.path, environment: Self.noBacktracer)
        #expect(result.status != 0)
        #expect(result.standardError.contains("Recorder<ShopState, ShopAction>'s middleware was called from two threads at once"), "\(result.standardError)")
    }
    #endif
}
