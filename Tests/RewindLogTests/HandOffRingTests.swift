import Foundation
import Rewind
import RewindCoding
@testable import RewindLogCore
import RewindSQLite
import RewindTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The recorder's single-producer ring (`HandOffRing`): order, room, ownership of what it holds.
@Suite("The hand-off ring")
struct HandOffRingTests {
    /// An element that counts its instances alive.
    final class Counted: Sendable {
        static let alive = Atomic<Int>(0)
        let value: Int
        init(_ value: Int) {
            self.value = value
            Self.alive.wrappingAdd(1, ordering: .relaxed)
        }
        deinit { Self.alive.wrappingSubtract(1, ordering: .relaxed) }
    }

    @Test("a producer thread and a consumer thread: 200,000 elements through 7 slots, each once and in order, each with its flag")
    func order() async {
        // Each side gives its core up when the other has not moved: the suite runs beside many
        // others on two cores, where two threads spinning on each other (a million elements)
        // took over three minutes in CI, and the CPU the rest of the run needed, instead of
        // about a second alone. 200,000 elements still wrap the ring some 28,000 times.
        let ring = HandOffRing<Int>(size: 7)
        let total = 200_000
        let producer = Thread {
            var next = 0
            while next < total {
                if ring.countForProducer(refresh: false) < ring.size || ring.countForProducer(refresh: true) < ring.size {
                    #expect(ring.push(next, flagged: next % 3 == 0) == next + 1)
                    next += 1
                } else {
                    sched_yield()
                }
            }
        }
        producer.start()
        var received: [Int] = []
        received.reserveCapacity(total)
        var wrongFlags = 0
        while received.count < total {
            let count = ring.countForConsumer
            if count == 0 {
                sched_yield()
                continue
            }
            #expect(count <= ring.size)
            if count > 1 { #expect(ring.peek(1) { copy $0 } == ring.peek(0) { copy $0 } + 1) }
            for offset in 0..<count where ring.isFlagged(offset) != (ring.peek(offset) { copy $0 } % 3 == 0) { wrongFlags += 1 }
            ring.take(count, into: &received)
        }
        #expect(received == Array(0..<total))
        #expect(wrongFlags == 0)
        #expect(ring.countForConsumer == 0 && ring.countForProducer(refresh: true) == 0)
    }

    @Test("what it holds when it goes is released once; a reclaimed element leaves the ring")
    func ownership() {
        #expect(Counted.alive.load(ordering: .relaxed) == 0)
        do {
            let ring = HandOffRing<Counted>(size: 4)
            for value in 0..<3 { ring.push(Counted(value), flagged: false) }
            var taken: [Counted] = []
            ring.take(2, into: &taken)
            for value in 3..<6 { ring.push(Counted(value), flagged: false) }  // across the wrap
            #expect(ring.countForConsumer == 4)
            let last = ring.reclaimLast(number: 6)
            #expect(last.value == 5 && ring.countForConsumer == 3)
            #expect(Counted.alive.load(ordering: .relaxed) == 6)
            #expect(taken.map(\.value) == [0, 1])
        }
        // The two taken, the one reclaimed and the three left in the ring: all released.
        #expect(Counted.alive.load(ordering: .relaxed) == 0)
    }

    @Test("a store dispatching while another thread closes its recorder: every action is in the log or reported refused, once, the log's in order")
    func closeWhileDispatching() throws {
        for round in 0..<30 {
            let folder = try TemporaryDirectory()
            let path = folder.file("close.rewind")
            let failures = Recorded<RecorderFailure<Int>>()
            var configuration = RecorderConfiguration<Int, Int>()
            configuration.onFailure = { failures.append($0) }
            let recorder = Recorder<Int, Int>(log: try EventLog(path: path), app: AppIdentity(id: "close"), configuration: configuration)
            let store = Store(initialState: 0, reducer: Reducer<Int, Int> { state, action in state &+= action }, middleware: recorder.middleware)
            let total = 20_000
            let done = DispatchSemaphore(value: 0)
            let producer = Thread {
                for action in 1...total { store.dispatch(action) }
                done.signal()
            }
            producer.start()
            // Close at a different moment each round: early, mid-burst, late.
            Thread.sleep(forTimeInterval: Double(round % 10) * 0.002)
            try recorder.close()
            done.wait()
            let log = try EventLog(path: path, mode: .readOnly)
            var events = log.events()
            let logged = try events.collect().map { try $0.decodeAction(as: Int.self, codec: JSONPayloadCodec(), path: path) }
            let refused = failures.all.flatMap { failure in failure.unrecorded.map(\.action) }
            #expect(logged == Array(1..<(logged.count + 1)), "round \(round): the log holds a prefix, in order")
            #expect(refused == Array((logged.count + 1)..<(total + 1)), "round \(round): \(logged.count) logged, \(refused.count) refused")
        }
    }
}
