import Foundation
import Rewind
import RewindExamples
import RewindLog

/// A shop log whose sessions recorded at set times, for the time-window options: each session
/// starts at its `start` and has one `.cart(.clear)` event at each of its `events` (seconds
/// since 1970).
public enum TimedSessions {
    public struct Plan: Sendable {
        public var start: Double
        public var events: [Double]

        public init(start: Double, events: [Double]) {
            (self.start, self.events) = (start, events)
        }
    }

    /// 2026-11-20 at `hour`:`minute` UTC, in seconds since 1970.
    public static func time(_ hour: Int, _ minute: Int = 0) -> Double {
        1_795_132_800 + Double(hour * 3_600 + minute * 60)
    }

    /// ISO-8601 for `time(hour, minute)`.
    public static func iso(_ hour: Int, _ minute: Int = 0) -> String {
        String(format: "2026-11-20T%02d:%02d:00Z", hour, minute)
    }

    /// Writes the sessions, in order, into a new log at `path`.
    public static func write(_ plans: [Plan], to path: String) throws {
        let log = try EventLog(path: path)
        for plan in plans {
            let session = try log.beginSession(
                app: AppIdentity(id: "com.example.shop", version: "1.0"), initialState: ShopState(),
                at: Date(timeIntervalSince1970: plan.start)
            )
            let records = plan.events.map { time in
                EventRecord(ShopAction.cart(.clear), source: ActionSource(file: "Shop/CartView.swift", function: "clear()", line: 1, column: 1), time: Date(timeIntervalSince1970: time))
            }
            if !records.isEmpty { _ = try log.append(records, to: session) }
        }
        try log.close()
    }

    /// Four sessions: 1 from 10:00 to 10:30; 2 from 11:00 to 13:00; 3 started at 12:30 with no
    /// events; 4 from 14:00 to 14:10.
    public static let day: [Plan] = [
        Plan(start: time(10), events: [time(10), time(10, 15), time(10, 30)]),
        Plan(start: time(11), events: [time(11), time(12), time(13)]),
        Plan(start: time(12, 30), events: []),
        Plan(start: time(14), events: [time(14), time(14, 10)]),
    ]

    /// Which of `day`'s sessions (by number) each window chooses: absolute times, open ends,
    /// and durations counted back from the last event (14:10).
    public static let windows: [(arguments: [String], sessions: [Int])] = [
        (["--since", iso(12), "--until", iso(12, 45)], [2, 3]),
        (["--since", iso(10, 15), "--until", iso(10, 20)], [1]),
        (["--until", iso(10, 59)], [1]),
        (["--since", iso(13, 30)], [4]),
        (["--since", iso(14, 10)], [4]),
        (["--since", iso(14, 11)], []),
        (["--since", "2h"], [2, 3, 4]),
        (["--until", "3h"], [1, 2]),
        (["--since", "5h", "--until", "1h"], [1, 2, 3]),
    ]
}
