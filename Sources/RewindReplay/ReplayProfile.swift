/// What each action's reducer cost when sessions of a log were replayed: per case, how many,
/// the median, the 99th percentile and the total; and the slowest actions, by seq.
///
/// Times are measured in the build that replays (the developer's), never on the device that
/// recorded: recording costs nothing more for it. Each reducer call is timed on its own with a
/// monotonic clock, less what reading the clock costs (``timerOverheadNanoseconds``, measured
/// at the start), so a reducer faster than the clock's resolution reads as 0. Percentiles are
/// read from a histogram and are within 0.8 % of the exact ones; counts, totals and the slowest
/// actions are exact.
///
/// Made by ``Replayer/profile(sessions:from:through:slowest:)``; compare two builds with
/// ``ProfileComparison``.
public struct ReplayProfile: Codable, Sendable, Equatable {
    /// One action case's cost.
    public struct CaseCost: Codable, Sendable, Equatable {
        /// The case path, as the log records it (`cart.add`).
        public var actionCase: String
        /// How many of its actions were reduced.
        public var count: Int
        /// The median reducer time, in nanoseconds.
        public var p50Nanoseconds: UInt64
        /// The 99th percentile, in nanoseconds.
        public var p99Nanoseconds: UInt64
        /// The longest, in nanoseconds.
        public var maxNanoseconds: UInt64
        /// All of its actions' reducer time, in nanoseconds.
        public var totalNanoseconds: UInt64

        public init(actionCase: String, count: Int, p50Nanoseconds: UInt64, p99Nanoseconds: UInt64, maxNanoseconds: UInt64, totalNanoseconds: UInt64) {
            (self.actionCase, self.count, self.p50Nanoseconds, self.p99Nanoseconds) = (actionCase, count, p50Nanoseconds, p99Nanoseconds)
            (self.maxNanoseconds, self.totalNanoseconds) = (maxNanoseconds, totalNanoseconds)
        }
    }

    /// One of the slowest actions.
    public struct SlowAction: Codable, Sendable, Equatable {
        /// The event's seq.
        public var seq: Int64
        /// Its session.
        public var session: Int64
        /// Its case path.
        public var actionCase: String
        /// Its reducer time, in nanoseconds.
        public var nanoseconds: UInt64

        public init(seq: Int64, session: Int64, actionCase: String, nanoseconds: UInt64) {
            (self.seq, self.session, self.actionCase, self.nanoseconds) = (seq, session, actionCase, nanoseconds)
        }
    }

    /// The sessions replayed, in order.
    public var sessions: [Int64]
    /// How many actions were reduced.
    public var actions: Int
    /// Their reducer time, in nanoseconds.
    public var reducerNanoseconds: UInt64
    /// The whole replay's time (reading, decoding and reducing), in nanoseconds.
    public var replayNanoseconds: UInt64
    /// What one reading of the clock costs here, subtracted from every action's time.
    public var timerOverheadNanoseconds: UInt64
    /// Each case's cost, the largest total first.
    public var cases: [CaseCost]
    /// The slowest actions, the slowest first (ties by seq).
    public var slowest: [SlowAction]

    public init(
        sessions: [Int64], actions: Int, reducerNanoseconds: UInt64, replayNanoseconds: UInt64, timerOverheadNanoseconds: UInt64,
        cases: [CaseCost], slowest: [SlowAction]
    ) {
        (self.sessions, self.actions, self.reducerNanoseconds, self.replayNanoseconds) = (sessions, actions, reducerNanoseconds, replayNanoseconds)
        (self.timerOverheadNanoseconds, self.cases, self.slowest) = (timerOverheadNanoseconds, cases, slowest)
    }

    /// The case with the largest total, if any action was reduced.
    public var costliestCase: CaseCost? { cases.first }
}
