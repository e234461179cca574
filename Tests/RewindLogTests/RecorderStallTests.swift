import Foundation
import Rewind
import RewindExamples
@testable import RewindLogCore
import RewindTestSupport
import Testing

/// The line between a slow store and a stuck one (`RecorderConfiguration.stallLimit`). The
/// stuck side — dispatch let go, a gap, recording resumed — runs against every store in
/// `RecordingDestinationTests.stuckDestination`.
@Suite("A slow store is not a stuck one")
struct RecorderStallTests {
    /// Records `count` shop actions dispatched as fast as they go, then flushes and closes;
    /// returns the store, the recorder and the longest single dispatch.
    static func dispatchAtFullSpeed(
        _ count: Int, into log: MemoryLog, configuration: RecorderConfiguration<ShopState, ShopAction>
    ) throws -> (Store<ShopState, ShopAction>, Recorder<ShopState, ShopAction>, Duration) {
        let recorder = Recorder<ShopState, ShopAction>(into: RecordingDestination(log), app: AppIdentity(id: "com.example.shop"), configuration: configuration)
        let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
        let clock = ContinuousClock()
        var longest = Duration.zero
        for index in 0..<count {
            let before = clock.now
            store.dispatch(.cart(.applyDiscount(code: "D\(index)")))
            longest = max(longest, clock.now - before)
        }
        try recorder.flush()
        try recorder.close()
        return (store, recorder, longest)
    }

    @Test("a store slower than dispatch but still committing: dispatch waits for room and nothing is lost")
    func slowStore() throws {
        let log = MemoryLog()
        // Each commit takes a third of the stall limit: slow, never stuck.
        log.writeDelay.store(100, ordering: .relaxed)
        let failures = Recorded<RecorderFailure<ShopAction>>()
        var configuration = RecorderConfiguration<ShopState, ShopAction>()
        configuration.onFailure = { failures.append($0) }
        configuration.bufferCapacity = 64
        configuration.batchSize = 16
        configuration.stallLimit = .milliseconds(300)
        let (store, _, longest) = try Self.dispatchAtFullSpeed(400, into: log, configuration: configuration)

        #expect(failures.all.isEmpty, "\(failures.all)")
        #expect(try log.gaps().isEmpty)
        #expect(try log.sessions().map(\.eventCount) == [400])
        // It did wait: 400 actions through a 64-action buffer at 16 per 100 ms commit.
        #expect(longest >= .milliseconds(50), "longest dispatch \(longest)")
        #expect(try log.restoredState(app: AppIdentity(id: "com.example.shop"), reducer: Shop.reducer) == store.state)
    }

    @Test("room comes back a batch at a time: a dispatch waiting for it waits for one batch's commit, not for all the buffer held")
    func roomPerBatch() throws {
        let log = MemoryLog()
        // Each commit takes 200 ms; the buffer holds four batches. Taking the whole buffer at
        // once, a full buffer's dispatch waited for four commits (800 ms).
        log.writeDelay.store(200, ordering: .relaxed)
        var configuration = RecorderConfiguration<ShopState, ShopAction>()
        configuration.bufferCapacity = 32
        configuration.batchSize = 8
        configuration.stallLimit = .seconds(30)
        let (_, recorder, longest) = try Self.dispatchAtFullSpeed(72, into: log, configuration: configuration)
        #expect(try log.sessions().map(\.eventCount) == [72])
        #expect(try log.gaps().isEmpty)
        // It waited (the buffer filled), about one commit, and well under two.
        #expect(longest >= .milliseconds(100) && longest < .milliseconds(400), "longest dispatch \(longest)")
        #expect(recorder.longestCommit >= .milliseconds(200), "\(recorder.longestCommit)")
    }

    @Test("a take holds at most a batch; a state to encode begins a take of its own, with at most an eighth of a batch after it — or, for a store, a snapshot after events ends their take")
    func takes() {
        typealias Item = RecordingBuffer<ShopState, ShopAction>.Item
        let event = Item.event(DispatchedAction(.cart(.applyDiscount(code: "D")), from: ActionSource()), time: EventStamp(seconds: 0))
        let snapshot = Item.snapshot(PendingSnapshot(ShopState(), time: 0)), fresh = Item.freshState(ShopState(), time: EventStamp(seconds: 0))
        func count(_ items: [Item], batch: Int, snapshotsJoinEvents: Bool = false) -> Int {
            // Pushed past the ring's end, so that the count looks across its wrap.
            let ring = HandOffRing<Item>(size: items.count + 3)
            for _ in 0..<3 { ring.push(event, flagged: true) }
            var drained: [Item] = []
            ring.take(3, into: &drained)
            for item in items { ring.push(item, flagged: item.isEvent) }
            return RecorderWriter<ShopState, ShopAction>.takeCount(
                ring, count: ring.countForConsumer, batch: batch, snapshotsJoinEvents: snapshotsJoinEvents
            )
        }
        #expect(count([], batch: 8) == 0)
        #expect(count(Array(repeating: event, count: 20), batch: 8) == 8)
        #expect(count(Array(repeating: event, count: 5), batch: 8) == 5)
        // Events stop before a state; a state takes an eighth of a batch of events after it.
        #expect(count([event, event, snapshot, event], batch: 8) == 2)
        #expect(count([snapshot] + Array(repeating: event, count: 20), batch: 16) == 3)
        #expect(count([fresh] + Array(repeating: event, count: 20), batch: 16) == 3)
        #expect(count([snapshot, event, snapshot, event], batch: 16) == 2)
        #expect(count([snapshot, snapshot], batch: 16) == 1)
        #expect(count([snapshot, event, event], batch: 1) == 2)
        // For a store, a snapshot after events ends their take when the batch has room for it;
        // a fresh state does not join them (it begins the session recording resumes in).
        #expect(count([event, event, snapshot, event], batch: 8, snapshotsJoinEvents: true) == 3)
        #expect(count([event, event, snapshot, event], batch: 2, snapshotsJoinEvents: true) == 2)
        #expect(count([event, event, fresh, event], batch: 8, snapshotsJoinEvents: true) == 2)
        #expect(count([event, snapshot, snapshot, event], batch: 8, snapshotsJoinEvents: true) == 2)
        #expect(count([snapshot, event, snapshot, event], batch: 16, snapshotsJoinEvents: true) == 2)
    }

    @Test("synchronous durability on a stuck store: each dispatch waits at most the stall limit, and its action is committed once the store answers")
    func synchronousOnAStuckStore() throws {
        let log = MemoryLog()
        let failures = Recorded<RecorderFailure<ShopAction>>()
        var configuration = RecorderConfiguration<ShopState, ShopAction>()
        configuration.onFailure = { failures.append($0) }
        configuration.durability = .synchronous
        configuration.stallLimit = .milliseconds(300)
        let recorder = Recorder<ShopState, ShopAction>(into: RecordingDestination(log), app: AppIdentity(id: "com.example.shop"), configuration: configuration)
        let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
        store.dispatch(.cart(.clear))
        log.isStalled.store(true, ordering: .releasing)
        let clock = ContinuousClock()
        var longest = Duration.zero
        for index in 0..<5 {
            let before = clock.now
            store.dispatch(.cart(.applyDiscount(code: "S\(index)")))
            longest = max(longest, clock.now - before)
        }
        // Without the limit the first of these waited for as long as the store was stuck.
        #expect(longest < .milliseconds(300) + .seconds(1), "longest dispatch \(longest)")
        log.isStalled.store(false, ordering: .releasing)
        try recorder.flush()
        try recorder.close()
        #expect(failures.all.isEmpty, "\(failures.all)")
        #expect(try log.sessions().map(\.eventCount) == [6])
    }

    @Test("a writer busy encoding large snapshots is not a stuck store: encoding time does not count toward the stall limit")
    func slowSnapshots() throws {
        let log = MemoryLog()
        let failures = Recorded<RecorderFailure<Int>>()
        var configuration = RecorderConfiguration<SlowToEncode, Int>()
        configuration.onFailure = { failures.append($0) }
        configuration.bufferCapacity = 32
        configuration.batchSize = 16
        // Three snapshots a batch at 150 ms each: a batch takes longer to encode than the limit.
        configuration.snapshotInterval = 5
        configuration.snapshotBudget = .infinity
        configuration.stallLimit = .milliseconds(300)
        let app = AppIdentity(id: "com.example.counter")
        let recorder = Recorder<SlowToEncode, Int>(into: RecordingDestination(log), app: app, configuration: configuration)
        let store = Store(initialState: SlowToEncode(), reducer: Reducer { state, action in state.total += action }, middleware: recorder.middleware)
        for value in 1...60 { store.dispatch(value) }
        try recorder.flush()
        try recorder.close()
        #expect(failures.all.isEmpty, "\(failures.all)")
        #expect(try log.gaps().isEmpty)
        #expect(try log.sessions().map(\.eventCount) == [60])
    }
}

/// A state whose encoding takes 150 ms (a large state on a slow device).
struct SlowToEncode: Codable, Sendable, Equatable {
    var total = 0

    init() {}

    init(from decoder: any Decoder) throws {
        total = try decoder.singleValueContainer().decode(Int.self)
    }

    func encode(to encoder: any Encoder) throws {
        Thread.sleep(forTimeInterval: 0.15)
        var container = encoder.singleValueContainer()
        try container.encode(total)
    }
}
