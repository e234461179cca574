import Foundation
@testable import RewindLogCore
import RewindTestSupport
import Testing

/// The writer's take size while dispatch outruns it (`CommitPace`): fed commit times of a
/// modelled store, and asked as the writer asks, take after take.
@Suite("Commit pace")
struct CommitPaceTests {
    /// A store whose commit of `n` events takes `fixed + n × perEvent` seconds.
    struct ModelledStore {
        var fixed: Double
        var perEvent: Double

        func commit(_ events: Int) -> Duration {
            .nanoseconds(Int64((fixed + Double(events) * perEvent) * 1e9))
        }
    }

    /// Takes under a dispatch that waits for room at every take (a burst), each committed on
    /// `store`; returns the take sizes.
    static func burst(on store: ModelledStore, takes: Int, batch: Int = 2_048, pace: inout CommitPace) -> [Int] {
        var sizes: [Int] = []
        var now = ContinuousClock.now
        var pushed = 0
        for _ in 0..<takes {
            let size = min(4_096, pace.limit(available: 4_096, batch: batch, capacity: 4_096, pushed: pushed, waiting: true, now: now))
            sizes.append(size)
            let took = store.commit(size)
            pace.committed(events: size, batch: batch, in: took)
            now += took
            pushed += size
        }
        return sizes
    }

    @Test("a burst on a store whose commits are mostly per event: the first take measures, each next one at most doubles, then they commit in about 8 ms")
    func settlesAtTheTarget() {
        // The bench's slow day: 2,048 JSON events in about 17 ms, half a millisecond of it the sync.
        let store = ModelledStore(fixed: 0.0005, perEvent: 0.0000080)
        var pace = CommitPace()
        let sizes = Self.burst(on: store, takes: 30, pace: &pace)
        let floor = CommitPace.floor(batch: 2_048)
        #expect(sizes.prefix(3) == [floor, 2 * floor, 4 * floor], "nothing measured: the floor, then twice the largest so far, \(sizes)")
        #expect(sizes.allSatisfy { $0 >= floor && $0 < 2_048 }, "\(sizes)")
        // From the fourth take on, every commit within the target (and not far under it: the
        // take is as large as the target allows).
        for size in sizes.dropFirst(3) {
            let took = store.commit(size)
            #expect(took <= CommitPace.target + .microseconds(50), "a take of \(size) commits in \(took)")
            #expect(took >= CommitPace.target * 0.9, "a take of \(size) commits in \(took): smaller than it needs to be")
        }
    }

    @Test("a store whose fixed part alone passes the target (a distant server) is not paced: smaller takes would not commit sooner")
    func fixedCostBeyondTheTarget() {
        let store = ModelledStore(fixed: 0.030, perEvent: 0.0000040)
        var pace = CommitPace()
        let sizes = Self.burst(on: store, takes: 10, pace: &pace)
        // One take of the floor to measure, one of twice it to tell the fixed part (the
        // floor's commit already passed the target), then whole batches.
        #expect(sizes.prefix(2) == [CommitPace.floor(batch: 2_048), 2 * CommitPace.floor(batch: 2_048)])
        #expect(sizes.dropFirst(2).allSatisfy { $0 == 2_048 }, "\(sizes)")
        // A store whose every commit takes the same time, whatever it holds (the tests' slow
        // log): the same.
        var constant = CommitPace()
        let constantSizes = Self.burst(on: ModelledStore(fixed: 0.2, perEvent: 0), takes: 6, batch: 8, pace: &constant)
        #expect(constantSizes == [1, 2, 8, 8, 8, 8], "\(constantSizes)")
    }

    @Test("a fast store is not paced: its whole batch commits within the target, once takes doubling from the floor have shown it")
    func fastStore() {
        let store = ModelledStore(fixed: 0.0002, perEvent: 0.0000015)
        var pace = CommitPace()
        let sizes = Self.burst(on: store, takes: 10, pace: &pace)
        #expect(sizes.prefix(4) == [128, 256, 512, 1_024], "\(sizes)")
        #expect(sizes.dropFirst(4).allSatisfy { $0 == 2_048 }, "\(sizes)")
    }

    @Test("a line through a session's first, cold commits does not size a take beyond twice the largest: the bench's burst once took a whole batch in 13 ms after it")
    func coldStart() {
        // The burst's first two commits, as traced: 128 events in 2.6 ms, 387 in 2.7 ms (a
        // line of 0.4 µs an event); its later commits cost about 6 µs an event.
        var pace = CommitPace()
        let now = ContinuousClock.now
        #expect(pace.limit(available: 4_096, batch: 2_048, capacity: 4_096, pushed: 4_096, waiting: true, now: now) == 128)
        pace.committed(events: 128, batch: 2_048, in: .microseconds(2_600))
        pace.committed(events: 387, batch: 2_048, in: .microseconds(2_700))
        #expect(pace.limit(available: 4_096, batch: 2_048, capacity: 4_096, pushed: 4_096, waiting: true, now: now) == 774)
    }

    @Test("without a dispatch waiting: paced when the rate the hand-off fills at would fill its room during a whole batch's commit, not otherwise")
    func outrunWithoutWaiting() {
        let store = ModelledStore(fixed: 0.0005, perEvent: 0.0000080)
        var pace = CommitPace()
        _ = Self.burst(on: store, takes: 10, pace: &pace)
        // An app dispatching 20,000 actions a second: 2,048 buffered in about 100 ms; a whole
        // batch's 17 ms commit leaves the producer 4,096 slots, which it fills in 200 ms.
        var now = ContinuousClock.now
        _ = pace.limit(available: 0, batch: 2_048, capacity: 4_096, pushed: 0, waiting: false, now: now)
        now += .milliseconds(100)
        #expect(pace.limit(available: 2_048, batch: 2_048, capacity: 4_096, pushed: 2_048, waiting: false, now: now) == 2_048)
        // A burst: 2,048 pushed in a millisecond and a half fill the room in three.
        now += .microseconds(1_500)
        let paced = pace.limit(available: 2_048, batch: 2_048, capacity: 4_096, pushed: 4_096, waiting: false, now: now)
        #expect(paced < 2_048 && store.commit(paced) <= CommitPace.target + .microseconds(50), "\(paced)")
        // Fewer than the floor buffered: taken whole, whatever the pressure.
        #expect(pace.limit(available: 100, batch: 2_048, capacity: 4_096, pushed: 4_196, waiting: true, now: now) == 2_048)
    }

    @Test("idle commits of a few events each, then a burst: the burst's takes are sized from them and settle at the target")
    func idleThenBurst() {
        let store = ModelledStore(fixed: 0.0005, perEvent: 0.0000080)
        var pace = CommitPace()
        for events in [1, 3, 2, 1, 4, 2, 1, 1, 2, 3] { pace.committed(events: events, batch: 2_048, in: store.commit(events)) }
        let sizes = Self.burst(on: store, takes: 20, pace: &pace)
        #expect(sizes.allSatisfy { $0 < 2_048 }, "never a whole batch's commit: \(sizes)")
        for size in sizes.suffix(10) {
            #expect(store.commit(size) <= CommitPace.target + .microseconds(50), "a take of \(size) commits in \(store.commit(size))")
        }
    }
}
