import Foundation
import GRDB
import Rewind
import RewindCoding
import RewindExamples
@testable import RewindLogCore
@testable import RewindSQLite
import RewindTestSupport
import Synchronization
import Testing

/// A long raw walk reads ahead on a thread of its own (`RawEventReadAhead`): the same events in
/// the same order as a walk on one thread, every way a walk can end, a bounded number of events
/// ahead, and no read of the log left running once the walk returns.
@Suite("Raw walks that read ahead")
struct RawEventReadAheadTests {
    enum Action: Codable, Equatable, Sendable {
        case load([String])
        case note(String)
        case secret(String)
        case ping
        case late(Int)
    }

    struct State: Codable, Equatable, Sendable {}

    /// The actions of the long session: shared payloads (the catalogue), notes of many sizes, a
    /// few larger than a whole batch, withheld secrets, and, past the first pages, a case the
    /// log had not seen (its name table grows mid-walk).
    static func actions(count: Int) -> [Action] {
        let catalogue = Action.load((1...12).map { "product number \($0)" })
        let huge = String(repeating: "h", count: RawEventReadAhead.Batch.maximumBytes + 1_000)
        return (1...count).map { index -> Action in
            switch index {
            case _ where index % 9_001 == 0: .note(huge + "\(index)")
            case _ where index > 20_000 && index % 5 == 0: .late(index)
            case _ where index % 7 == 0: catalogue
            case _ where index % 11 == 0: .secret("token \(index)")
            case _ where index % 3 == 0: .ping
            default: index % 13 == 0 ? catalogue : .note(String(repeating: "n", count: index % 200) + "\(index)")
            }
        }
    }

    /// A log with one session of `actions`, appended 1,000 at a time, secrets withheld.
    static func log(_ actions: [Action], codec: any PayloadCodec, in folder: TemporaryDirectory) throws -> (EventLog, String) {
        let path = folder.file("long.rewind")
        let log = try EventLog(path: path)
        let session = try log.beginSession(app: AppIdentity(id: "read-ahead"), codec: codec, initialState: State())
        let redaction = Redaction<State, Action> { action in
            if case .secret = action { return .withhold }
            return .keep
        }
        var start = 0
        while start < actions.count {
            let part = actions[start..<min(start + 1_000, actions.count)]
            try log.append(part.map { EventRecord($0, source: ActionSource()) }, to: session, redaction: redaction)
            start += 1_000
        }
        return (log, path)
    }

    /// Each event of a walk as a line: seq, case, payload, redaction.
    static func lines(_ log: any LogReader, from first: Int64 = 1, through last: Int64 = .max) throws(EventLogError) -> [String] {
        var lines: [String] = []
        _ = try log.forEachRawEvent(session: 1, from: first, through: last) { event in
            lines.append("\(event.seq) \(event.actionCase) \(event.payload.map { Data($0).base64EncodedString() } ?? "-") \(event.redaction ?? "")")
            return .continue
        }
        return lines
    }

    @Test("a long walk gives every event as a walk on one thread does, and replay decodes them all", arguments: ["json", "binary"])
    func sameEvents(codecName: String) throws {
        let folder = try TemporaryDirectory()
        let actions = Self.actions(count: 30_500)
        let codec: any PayloadCodec = codecName == "json" ? JSONPayloadCodec() : BinaryPayloadCodec()
        let (log, _) = try Self.log(actions, codec: codec, in: folder)
        defer { try? log.close() }
        let walksBefore = EventLog.readAheadWalks.load(ordering: .relaxed)
        let ahead = try Self.lines(log)
        let walksAfter = EventLog.readAheadWalks.load(ordering: .relaxed)
        if ProcessInfo.processInfo.activeProcessorCount > 1 {
            // Read ahead, or this test would compare a one-thread walk with itself. (The core
            // count is asked here, not the log's own `readsAhead`, which a mistake could turn off.)
            #expect(walksAfter > walksBefore)
        }
        // A log held in one read transaction reads every page on its own thread.
        let oneThread = try log.readingConsistently { moment throws(EventLogError) in try Self.lines(moment) }
        #expect(ahead.count == actions.count)
        #expect(ahead == oneThread)
        // A walk that begins past the first page, and one that ends mid-batch.
        #expect(try Self.lines(log, from: 9_000, through: 27_777) == Array(oneThread[8_999..<27_777]))

        let kept = actions.enumerated().filter { if case .secret = $0.element { return false } else { return true } }
        var decoded: [(Int64, Action)] = []
        try SessionReader(log: log, session: log.session(1)).forEachAction(Action.self, from: 1, through: Int64(actions.count), undecodable: { _, _, _ in }) { seq, action in
            decoded.append((seq, action))
            return .continue
        }
        #expect(decoded.map(\.0) == kept.map { Int64($0.offset + 1) })
        #expect(decoded.map(\.1) == kept.map(\.element))
    }

    @Test("a walk stopped anywhere returns at once, having read nothing past its stop that anyone sees; the log goes on")
    func stops() throws {
        let folder = try TemporaryDirectory()
        let actions = Self.actions(count: 21_000)
        let (log, path) = try Self.log(actions, codec: BinaryPayloadCodec(), in: folder)
        let all = try Self.lines(log)
        for stop in [1, 8_192, 8_193, 8_193 + RawEventReadAhead.Batch.maximumEvents, 8_194 + RawEventReadAhead.Batch.maximumEvents, 16_385, 21_000] {
            var seen: [String] = []
            let stopped = try log.forEachRawEvent(session: 1, from: 1, through: .max) { event in
                seen.append("\(event.seq) \(event.actionCase) \(event.payload.map { Data($0).base64EncodedString() } ?? "-") \(event.redaction ?? "")")
                return seen.count == stop ? .stop : .continue
            }
            #expect(stopped)
            #expect(seen == Array(all.prefix(stop)))
            // A body that throws: its error, as it threw it.
            struct Thrown: Error {}
            var count = 0
            #expect(throws: EventLogError.self) {
                try log.forEachRawEvent(session: 1, from: 1, through: .max) { _ throws(EventLogError) in
                    count += 1
                    if count == stop { throw .failed(path: "body", reason: "stop at \(stop)") }
                    return .continue
                }
            }
            #expect(count == stop)
        }
        // Nothing still reads: the log takes another event and closes, and the file is sound.
        let session = try log.session(1)
        try log.append([EventRecord(Action.ping, source: ActionSource())], to: session)
        try log.close()
        let reopened = try EventLog(path: path, mode: .readOnly)
        #expect(try reopened.checkIntegrity().isSound)
        #expect(try Self.lines(reopened).count == 21_001)
    }

    @Test("damage past the first pages: the events before it, then its error, as on one thread")
    func damageMidWalk() throws {
        let folder = try TemporaryDirectory()
        let actions = (1...20_000).map { Action.note("note \($0)") }
        let (log, path) = try Self.log(actions, codec: BinaryPayloadCodec(), in: folder)
        try log.close()
        // A reference to a shared payload that is not there, at seq 15,000.
        try Self.execute("UPDATE events SET payload = 987654 WHERE seq = 15000", in: path)
        let damaged = try EventLog(path: path, mode: .readOnly)
        var seen = 0
        #expect {
            try damaged.forEachRawEvent(session: 1, from: 1, through: .max) { _ in
                seen += 1
                return .continue
            }
        } throws: { error in
            guard case let .corrupt(_, detail) = error as? EventLogError else { return false }
            return detail.contains("event 15000 refers to shared payload 987654")
        }
        #expect(seen == 14_999)
    }

    static func execute(_ sql: String, in path: String) throws {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        try queue.write { try $0.execute(sql: sql) }
    }

    /// A counter and a flag the reading thread and the test share.
    final class Counter: Sendable { let value = Atomic(0) }
    final class Flag: Sendable { let value = Atomic(false) }

    // MARK: The read-ahead itself

    /// `count` made-up events: payloads of every 1,000th one larger than a batch, every seventh
    /// none, the names growing every 5,000 events.
    final class Source: Sendable {
        let payloads: [[UInt8]]
        let count: Int
        init(count: Int) {
            self.count = count
            payloads = (0..<count).map { index in
                index % 7 == 0 ? [] : Array(repeating: UInt8(truncatingIfNeeded: index), count: index % 1_000 == 1 ? RawEventReadAhead.Batch.maximumBytes + 3 : 1 + index % 50)
            }
        }

        func event(_ index: Int, _ body: (RawEvent) -> FoldStep) -> FoldStep {
            let names: [String?] = (0...(index / 5_000)).map { "case \($0)" }
            return payloads[index].withUnsafeBytes { bytes in
                body(RawEvent(seq: Int64(index + 1), actionID: index / 5_000 + 1, names: names, payload: index % 7 == 0 ? nil : bytes,
                              redaction: index % 7 == 0 ? "action" : nil))
            }
        }

        /// What a walk saw of an event.
        struct Seen: Equatable {
            var seq: Int64, actionCase: String, names: Int, payload: Data?, redaction: String?
            init(_ event: RawEvent) {
                (seq, actionCase, names, payload, redaction) = (event.seq, event.actionCase, event.names.count, event.payload.map { Data($0) }, event.redaction)
            }
        }
    }

    @Test("the read-ahead hands over every event in order: payloads larger than a batch, none, names that grow")
    func handsOverInOrder() throws {
        let source = Source(count: 12_345)
        var expected: [Source.Seen] = []
        for index in 0..<source.count { _ = source.event(index) { expected.append(Source.Seen($0)); return .continue } }
        var seen: [Source.Seen] = []
        let stopped = try RawEventReadAhead.walk(reading: { each in
            for index in 0..<source.count where source.event(index, each) == .stop { return }
        }) { event in
            seen.append(Source.Seen(event))
            return .continue
        }
        #expect(!stopped)
        #expect(seen.count == expected.count)
        #expect(seen == expected)
        #expect(expected.contains { ($0.payload?.count ?? 0) > RawEventReadAhead.Batch.maximumBytes })
    }

    @Test("the reader runs at most three batches ahead of a body that is slow")
    func bounded() throws {
        let counter = Counter()
        let limit = RawEventReadAhead.batches * RawEventReadAhead.Batch.maximumEvents
        var first = true
        var counted = 0
        _ = try RawEventReadAhead.walk(reading: { each in
            for index in 0..<100_000 {
                counter.value.add(1, ordering: .relaxed)
                let step = withUnsafeBytes(of: index) { bytes in
                    each(RawEvent(seq: Int64(index + 1), actionID: 1, names: ["a"], payload: bytes, redaction: nil))
                }
                if step == .stop { return }
            }
        }) { _ in
            counted += 1
            if first {
                first = false
                // It reads ahead: three batches fill while this body holds the first event…
                let deadline = ContinuousClock.now + .seconds(30)
                while counter.value.load(ordering: .relaxed) < limit, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.005) }
                let filled = counter.value.load(ordering: .relaxed)
                #expect(filled >= limit)
                // …and no more than that: the next event waits for a batch to come back.
                Thread.sleep(forTimeInterval: 0.2)
                let ahead = counter.value.load(ordering: .relaxed)
                #expect(ahead <= limit + 1)
            }
            return .continue
        }
        #expect(counted == 100_000)
    }

    @Test("a walk that stops or throws returns only once its reader is done with the log")
    func joinsItsReader() throws {
        for ending in ["stop", "throw"] {
            let done = Flag()
            let readerStopped = Flag()
            var seen = 0
            let walk = {
                try RawEventReadAhead.walk(reading: { each in
                    defer {
                        // A reader slow to notice: it still holds the log for a moment.
                        Thread.sleep(forTimeInterval: 0.3)
                        done.value.store(true, ordering: .releasing)
                    }
                    for index in 0..<50_000 {
                        let step = withUnsafeBytes(of: index) { each(RawEvent(seq: Int64(index + 1), actionID: 1, names: ["a"], payload: $0, redaction: nil)) }
                        if step == .stop {
                            readerStopped.value.store(true, ordering: .relaxed)
                            return
                        }
                    }
                }) { _ throws(EventLogError) in
                    seen += 1
                    guard seen == 10 else { return .continue }
                    if ending == "throw" { throw .failed(path: "body", reason: "thrown") }
                    return .stop
                }
            }
            if ending == "throw" {
                #expect(throws: EventLogError.self) { try walk() }
            } else {
                #expect(try walk())
            }
            let (readerDone, toldToStop) = (done.value.load(ordering: .acquiring), readerStopped.value.load(ordering: .relaxed))
            #expect(readerDone, "\(ending): the reader was still running when the walk returned")
            #expect(toldToStop, "\(ending): the reader was told to stop")
            #expect(seen == 10)
        }
    }

    @Test("the reader's error comes after every event it read before it")
    func readerError() throws {
        var seen = 0
        #expect {
            try RawEventReadAhead.walk(reading: { each throws(EventLogError) in
                for index in 0..<5_000 {
                    _ = withUnsafeBytes(of: index) { each(RawEvent(seq: Int64(index + 1), actionID: 1, names: ["a"], payload: $0, redaction: nil)) }
                }
                throw .failed(path: "reader", reason: "failed after 5,000")
            }) { _ in
                seen += 1
                return .continue
            }
        } throws: { error in
            guard case let .failed(_, reason) = error as? EventLogError else { return false }
            return reason == "failed after 5,000"
        }
        #expect(seen == 5_000)
    }
}
