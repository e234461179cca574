import Foundation
import RewindLog
@testable import RewindPostgres
import Testing

/// The hand-over of a recorder's batch from the writer thread to the task that copies it into
/// the store (`BatchRows`): parts arrive in order whether the task waits for them or not, the
/// end and an encoding's failure reach a waiting task, and a released batch keeps nothing and
/// leaves no task waiting (a lost wake-up fails the suite at its time limit rather than hanging it;
/// the limit is wide because, in a parallel run on two pool threads, waiting for a thread counts).
@Suite("A store recorder's batch handed over in parts", .timeLimit(.minutes(10)))
struct BatchRowsTests {
    /// A part of `count` rows told apart by their times, from `first` on.
    static func part(_ first: Int, count: Int = 2) -> [LogWrite] {
        (first..<first + count).map { .snapshot(time: Double($0), state: Data()) }
    }

    static func times(_ part: [LogWrite]?) -> [Double]? {
        part.map { rows in
            rows.map { row in
                guard case let .snapshot(time, _, _, _) = row else { return -1 }
                return time
            }
        }
    }

    struct EncodingFailed: Error, Equatable {}

    @Test("parts sent before the task looks come in order, then the end, every time after")
    func sentAhead() async throws {
        let rows = BatchRows()
        rows.send(Self.part(0))
        rows.send([])
        rows.send(Self.part(2, count: 3))
        rows.finish()
        #expect(try await Self.times(rows.next()) == [0, 1])
        #expect(try await Self.times(rows.next()) == [])
        #expect(try await Self.times(rows.next()) == [2, 3, 4])
        #expect(try await rows.next() == nil)
        #expect(try await rows.next() == nil)
        #expect(rows.taken.map { Self.times($0) } == [[0, 1], [], [2, 3, 4]])
    }

    @Test("a task waiting for the next part is given it by a send from the writer thread, and the end by the finish")
    func waitedFor() async throws {
        let rows = BatchRows()
        let writer = Thread {
            for index in 0..<50 {
                // Now and then the task is already waiting, now and then the part is there first.
                if index % 3 == 0 { Thread.sleep(forTimeInterval: 0.001) }
                rows.send(Self.part(index * 2))
            }
            rows.finish()
        }
        writer.start()
        var received: [Double] = []
        while let part = try await rows.next() {
            received += Self.times(part) ?? []
        }
        #expect(received == (0..<100).map(Double.init))
        #expect(rows.taken.count == 50)
    }

    /// A batch whose first part was taken, and a task waiting for its second (most likely
    /// waiting by now; one that looks later finds the same end).
    static func waitingForSecondPart() async throws -> (BatchRows, Task<[LogWrite]?, any Error>) {
        let rows = BatchRows()
        rows.send(part(0))
        #expect(try await times(rows.next()) == [0, 1])
        let waiting = Task { try await rows.next() }
        try await Task.sleep(for: .milliseconds(20))
        return (rows, waiting)
    }

    @Test("an encoding that failed reaches a waiting task as its error, and every look after")
    func failedWhileWaiting() async throws {
        let (rows, waiting) = try await Self.waitingForSecondPart()
        rows.finish(throwing: EncodingFailed())
        await #expect(throws: EncodingFailed.self) { try await waiting.value }
        await #expect(throws: EncodingFailed.self) { try await rows.next() }
        // Only the first end counts: a finish after it changes nothing.
        rows.finish()
        await #expect(throws: EncodingFailed.self) { try await rows.next() }
    }

    @Test("a released batch lets its waiting task go, keeps neither the parts it held nor those sent later, and gives nothing more")
    func released() async throws {
        let (rows, waiting) = try await Self.waitingForSecondPart()
        rows.release()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        rows.send(Self.part(2))
        #expect(rows.taken.isEmpty)
        await #expect(throws: CancellationError.self) { try await rows.next() }
        rows.finish()
        await #expect(throws: CancellationError.self) { try await rows.next() }
    }

    @Test("a batch made whole (written again after a rollback) gives its parts, then the end")
    func whole() async throws {
        let rows = BatchRows(whole: [Self.part(0), Self.part(2, count: 1)])
        #expect(try await Self.times(rows.next()) == [0, 1])
        #expect(try await Self.times(rows.next()) == [2])
        #expect(try await rows.next() == nil)
    }
}
