import Foundation
import GRDB
import Rewind
@testable import RewindLogCore
@testable import RewindSQLite
import RewindTestSupport
import Testing

@Suite("Activity over time")
struct LogActivityTests {
    enum Tap: String, Codable, Sendable { case a, b, c }

    /// A log whose events have chosen times: `times[i]` seconds after 1,000,000 for the i-th.
    static func log(times: [(Double, Tap)], in folder: TemporaryDirectory, sessions: Int = 1) throws -> EventLog {
        let log = try EventLog(path: folder.file("activity.rewind"))
        for _ in 0..<sessions {
            let session = try log.beginSession(app: AppIdentity(id: "t"), initialState: 0)
            try log.append(times.map { time, tap in
                EventRecord(tap, source: ActionSource(file: "F.swift", function: tap.rawValue, line: 1, column: 1), time: Date(timeIntervalSince1970: 1_000_000 + time))
            }, to: session)
        }
        return log
    }

    @Test("events fall in the stretch their time says; the last event is in the last stretch; series sum to the total")
    func buckets() throws {
        let folder = try TemporaryDirectory()
        let log = try Self.log(times: [(0, .a), (1, .a), (2.5, .b), (9.99, .c), (10, .a)], in: folder)
        let activity = try #require(try log.activity(buckets: 4))
        #expect(activity.start == 1_000_000)
        #expect(activity.bucketSeconds == 2.5)
        #expect(activity.total == [2, 1, 0, 2])
        #expect(activity.cases.map(\.name) == ["a", "b", "c"])
        #expect(activity.cases.first?.counts == [2, 0, 0, 1])
        #expect(activity.sources.map(\.name) == ["F.swift:1 a", "F.swift:1 b", "F.swift:1 c"])
        for series in [activity.cases, activity.sources] {
            #expect(series.reduce([0, 0, 0, 0]) { zip($0, $1.counts).map(+) } == activity.total)
        }
    }

    @Test("beyond top, the rest is summed as other; a session filter; every event at one time is one stretch")
    func topAndEdges() throws {
        let folder = try TemporaryDirectory()
        let log = try Self.log(times: [(0, .a), (0, .a), (0, .b), (0, .c)], in: folder, sessions: 2)
        let one = try #require(try log.activity(session: 2, buckets: 3, top: 1))
        #expect(one.bucketSeconds == 0)
        #expect(one.total == [4, 0, 0])
        #expect(one.cases.map(\.name) == ["a", "other"])
        #expect(one.cases.map(\.counts) == [[2, 0, 0], [2, 0, 0]])
        // Clamped sizes, never a trap.
        #expect(try log.activity(buckets: 0)?.total == [8])
        #expect(try log.activity(buckets: -5, top: -1)?.cases.map(\.name) == ["a", "other"])
        #expect(try log.activity(buckets: Int.max)?.total.count == 1_000)
        #expect(try log.activity(session: 99, buckets: 5) == nil)
        let empty = try EventLog(path: folder.file("empty.rewind"))
        #expect(try empty.activity(buckets: 5) == nil)
    }

    @Test("times a damaged log holds (NaN, infinite, far apart) give no chart or a sound one, never a trap")
    func hostileTimes() throws {
        let folder = try TemporaryDirectory()
        let log = try Self.log(times: [(0, .a), (1, .b)], in: folder)
        try log.close()
        let database = try DatabaseQueue(path: folder.file("activity.rewind"))
        for (first, second, expectation) in [("0", "1e308", true), ("-1e308", "0", true), ("-1.7e308", "1.7e308", false), ("0", "9e999", false)] as [(String, String, Bool)] {
            try database.write { db in
                try db.execute(sql: "UPDATE events SET time = \(first) WHERE seq = 1")
                try db.execute(sql: "UPDATE events SET time = \(second) WHERE seq = 2")
            }
            let activity = try EventLog(path: folder.file("activity.rewind"), mode: .readOnly).activity(buckets: 10)
            #expect((activity != nil) == expectation, "\(first) \(second)")
            if let activity { #expect(activity.total.reduce(0, +) == 2) }
        }
    }
}
