import Foundation
import Rewind
@testable import RewindLogCore
@testable import RewindSQLite
import RewindTestSupport
import Synchronization
import Testing

/// Causes recorded: tickets given on the dispatch path become seqs on the writer thread.
@Suite("Recorded causes")
struct RecorderCausationTests {
    enum Step: Codable, Hashable, Sendable {
        /// A gesture: its middleware dispatches `chain(n, 1)`, whose middleware dispatches
        /// `chain(n, 2)`…, and it starts an effect that sends `result(n)` once `gate` opens.
        case tap(Int, padding: String = "")
        case chain(Int, Int)
        case result(Int)
        case other(Int)
    }

    struct Count: Codable, Equatable, Sendable { var count = 0 }

    static let app = AppIdentity(id: "causes")
    static let reducer = Reducer<Count, Step> { state, _ in state.count += 1 }

    /// The middleware described at ``Step``; effects wait for `gate` before they send.
    static func chains(depth: Int, gate: Gate) -> Middleware<Count, Step> {
        Middleware(didReduce: { dispatched, _, context in
            switch dispatched.action {
            case let .tap(n, _):
                context.dispatch(.chain(n, 1))
                context.run(.run { send in
                    await gate.wait()
                    send(.result(n))
                })
            case let .chain(n, k) where k < depth:
                context.dispatch(.chain(n, k + 1))
            default:
                break
            }
        })
    }

    /// Opens once; waiters before then wait.
    final class Gate: Sendable {
        private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
        func wait() async {
            await withCheckedContinuation { continuation in
                let open = state.withLock { state in
                    if !state.open { state.waiters.append(continuation) }
                    return state.open
                }
                if open { continuation.resume() }
            }
        }
        func open() {
            let waiters = state.withLock { state in
                state.open = true
                defer { state.waiters.removeAll() }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    static func recorder(at path: String, batchSize: Int = 4, failures: Recorded<RecorderFailure<Step>>? = nil) throws -> Recorder<Count, Step> {
        try recorder(into: try EventLog(path: path), batchSize: batchSize, failures: failures)
    }

    static func recorder(into log: EventLog, batchSize: Int = 4, failures: Recorded<RecorderFailure<Step>>? = nil) throws -> Recorder<Count, Step> {
        var configuration = RecorderConfiguration<Count, Step>()
        configuration.batchSize = batchSize
        configuration.onFailure = { failure in failures?.append(failure) }
        return Recorder(log: log, app: app, configuration: configuration)
    }

    /// Every event of the log, by its action.
    static func events(_ path: String) throws -> [Step: LoggedEvent] {
        let log = try EventLog(path: path, mode: .readOnly)
        defer { try? log.close() }
        var cursor = log.events()
        let codec = JSONPayloadCodec()
        return Dictionary(uniqueKeysWithValues: try cursor.collect().map { (try $0.decodeAction(as: Step.self, codec: codec, path: path), $0) })
    }

    @Test("chains across batches of 4: each event names its cause and its gesture by seq; a result sent long after still finds its tap")
    func chainsAcrossBatches() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("chains.rewind")
        let recorder = try Self.recorder(at: path)
        let gate = Gate()
        let store = Store(initialState: Count(), reducer: Self.reducer, middleware: .combine(recorder.middleware, Self.chains(depth: 3, gate: gate)))
        for n in 0..<5 {
            store.dispatch(.tap(n))
            store.dispatch(.other(n))
        }
        try await recorder.flush()
        gate.open()  // the results come after 5 × 5 events, in later batches
        await store.waitUntilIdle()
        try await recorder.close()

        let events = try Self.events(path)
        #expect(events.count == 30)
        for n in 0..<5 {
            let tap = try #require(events[.tap(n)]), other = try #require(events[.other(n)])
            #expect(tap.isRoot && tap.cause == nil && tap.root == tap.seq)
            #expect(other.isRoot)
            var parent = tap
            for k in 1...3 {
                let step = try #require(events[.chain(n, k)])
                #expect(step.cause == parent.seq && step.root == tap.seq, "chain(\(n), \(k))")
                parent = step
            }
            let result = try #require(events[.result(n)])
            #expect(result.cause == tap.seq && result.root == tap.seq && !result.isRoot)
        }
        let log = try EventLog(path: path, mode: .readOnly)
        let chain = try log.causalChain(to: try #require(events[.chain(2, 3)]).seq)
        #expect(chain.start == .root)
        #expect(try chain.events.map { try $0.decodeAction(as: Step.self, codec: JSONPayloadCodec(), path: path) } == [.tap(2), .chain(2, 1), .chain(2, 2), .chain(2, 3)])
        var descendants = CausalDescendants(of: try #require(events[.tap(1)]).seq)
        var cursor = log.events()
        let led = try cursor.collect().filter { descendants.admits($0) }.map { try $0.decodeAction(as: Step.self, codec: JSONPayloadCodec(), path: path) }
        #expect(led == [.chain(1, 1), .chain(1, 2), .chain(1, 3), .result(1)])
    }

    @Test("a cause lost in a gap reads as unknown in the session after it, never as a wrong seq")
    func causeLostInAGap() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("gap.rewind")
        let failures = Recorded<RecorderFailure<Step>>()
        let writer = try EventLog(path: path)
        let recorder = try Self.recorder(into: writer, failures: failures)
        let gate = Gate()
        let store = Store(initialState: Count(), reducer: Self.reducer, middleware: .combine(recorder.middleware, Self.chains(depth: 0, gate: gate)))
        store.dispatch(.other(0))
        try await recorder.flush()
        try writer.simulateFullDisk()
        store.dispatch(.tap(1, padding: String(repeating: "x", count: 20_000)))  // lost: no room for it
        await #expect(throws: EventLogError.self) { try await recorder.flush() }
        try writer.freeDiskSpace()
        store.dispatch(.other(2))
        gate.open()
        await store.waitUntilIdle()
        try await recorder.flush()
        try await recorder.close()

        #expect(!failures.all.isEmpty)
        let events = try Self.events(path)
        #expect(!events.keys.contains { if case .tap(1, _) = $0 { true } else { false } })
        let result = try #require(events[.result(1)])
        #expect(result.cause == nil && result.root == nil && !result.isRoot, "its tap is in the gap")
        let other = try #require(events[.other(2)])
        #expect(other.isRoot)
        let chain = try EventLog(path: path, mode: .readOnly).causalChain(to: result.seq)
        #expect(chain.start == .unknown && chain.events.map(\.seq) == [result.seq])
    }

    @Test("a store's tap records the cause it is given; a log from before causes reads every cause as unknown")
    func tapAndOlderLogs() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("tap.rewind")
        let recorder = try Self.recorder(at: path, batchSize: 64)
        let tap = recorder.tap(initialState: Count())
        var state = Count()
        let gesture = ActionTicket.next()
        tap.record(.tap(0), from: ActionSource(), ticket: gesture, cause: nil, reducing: &state) { $0.count += 1 }
        // What the foreign store's effect sends later: caused by the tap, bound as its store would.
        ActionCause.$bound.withValue(gesture.causing(after: nil)) {
            tap.record(.result(0), from: ActionSource(), reducing: &state) { $0.count += 1 }
        }
        tap.record(.other(1), from: ActionSource(), reducing: &state) { $0.count += 1 }
        try recorder.close()
        var events = try Self.events(path)
        let recordedTap = try #require(events[.tap(0)]), result = try #require(events[.result(0)])
        #expect(recordedTap.isRoot)
        #expect(result.cause == recordedTap.seq && result.root == recordedTap.seq)
        #expect(try #require(events[.other(1)]).isRoot)

        try downgradeToSchemaOne(path)
        let upgraded = folder.file("upgraded.rewind")
        try FileManager.default.copyItem(atPath: path, toPath: upgraded)
        try EventLog(path: upgraded).close()
        events = try Self.events(upgraded)
        #expect(events.values.allSatisfy { $0.cause == nil && $0.root == nil && !$0.isRoot })
    }

    struct Refused: Error {}

    @Test("a tap's two-call form records the action with the ticket and cause its didReduce gives, hang watchdog on or off; a reducer that threw leaves nothing for the next, nor for a didReduce alone")
    func tapTwoCalls() throws {
        for watched in [true, false] {
            let folder = try TemporaryDirectory()
            let path = folder.file("tap.rewind")
            var configuration = RecorderConfiguration<Count, Step>()
            configuration.batchSize = 64
            // With the watchdog, the action recorded is the copy it took as the action entered.
            if !watched { configuration.hangLimit = nil }
            let recorder = Recorder<Count, Step>(log: try EventLog(path: path), app: Self.app, configuration: configuration)
            let tap = recorder.tap(initialState: Count())
            var state = Count()
            let gesture = ActionTicket.next()
            tap.willReduce(.tap(0), from: ActionSource(), state: state)
            state.count += 1
            tap.didReduce(.tap(0), from: ActionSource(), ticket: gesture, cause: nil, state: state)
            #expect(throws: Refused.self) {
                try tap.record(.other(9), from: ActionSource(), reducing: &state) { _ in throw Refused() }
            }
            // A store with an after-hook only: didReduce without willReduce records its own action.
            state.count += 1
            tap.didReduce(.other(2), from: ActionSource(), state: state)
            tap.willReduce(.result(0), from: ActionSource(), state: state)
            state.count += 1
            tap.didReduce(.result(0), from: ActionSource(), ticket: .next(), cause: gesture.causing(after: nil), state: state)
            tap.record(.other(1), from: ActionSource(), reducing: &state) { $0.count += 1 }
            try recorder.close()
            let events = try Self.events(path)
            #expect(Set(events.keys) == [.tap(0), .other(2), .result(0), .other(1)], "watchdog \(watched)")
            let recordedTap = try #require(events[.tap(0)]), result = try #require(events[.result(0)])
            #expect(recordedTap.isRoot, "watchdog \(watched)")
            #expect(result.cause == recordedTap.seq && result.root == recordedTap.seq, "watchdog \(watched)")
            #expect(try #require(events[.other(1)]).isRoot, "watchdog \(watched)")
        }
    }

    @Test("stored distances at their edges read as unknown or as the seq they name, never trap")
    func craftedDistances() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("crafted.rewind")
        let recorder = try Self.recorder(at: path)
        let store = Store(initialState: Count(), reducer: Self.reducer, middleware: .combine(recorder.middleware, Self.chains(depth: 2, gate: Gate())))
        store.dispatch(.tap(0))
        try recorder.close()
        let last: Int64 = 3  // tap, chain 1, chain 2 (the effect never sends)
        let cases: [(cause: Int64, root: Int64, expected: (cause: Int64?, root: Int64?))] = [
            (0, 0, (nil, last)),
            (-1, -1, (nil, nil)),
            (last, last, (nil, nil)),  // would be seq 0
            (.max, .min, (nil, nil)),
            (1, 2, (last - 1, last - 2)),
        ]
        for (cause, root, expected) in cases {
            let log = try EventLog(path: path)
            try log.write { db in
                try db.execute(sql: "UPDATE events SET cause_distance = ?, root_distance = ? WHERE seq = ?", arguments: [cause, root, last])
            }
            let event = try log.event(at: last)
            #expect(event.cause == expected.cause && event.root == expected.root, "distances \(cause), \(root)")
            let chain = try log.causalChain(to: last)
            #expect(chain.events.last?.seq == last)
            try log.close()
        }
    }
}
