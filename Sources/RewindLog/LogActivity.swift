
/// How many events a log (or a session) holds per stretch of time, per action case and per
/// source location: the `stats --buckets` sparklines and the inspector's activity chart.
public struct LogActivity: Sendable, Equatable, Codable {
    /// The start of the first bucket, in seconds since 1970 (the first event's time).
    public var start: Double
    /// Each bucket's length in seconds (0 when every event has the same time: one bucket).
    public var bucketSeconds: Double
    /// Events per bucket, all cases together.
    public var total: [Int]
    /// The most frequent cases, most frequent first, then `other` for the rest (when any).
    public var cases: [Series]
    /// The most frequent source locations (`file:line function`), then `other`.
    public var sources: [Series]

    /// One line of the chart: a name and its count per bucket.
    public struct Series: Sendable, Equatable, Codable {
        public var name: String
        public var counts: [Int]
    }
}
