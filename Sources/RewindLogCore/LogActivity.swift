
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

        package init(name: String, counts: [Int]) {
            (self.name, self.counts) = (name, counts)
        }
    }

    /// An activity as a store counted it.
    package init(start: Double, bucketSeconds: Double, total: [Int], cases: [Series], sources: [Series]) {
        (self.start, self.bucketSeconds, self.total, self.cases, self.sources) = (start, bucketSeconds, total, cases, sources)
    }
}

extension LogActivity {
    /// The activity from event counts per bucket, case and source (a store's `GROUP BY`):
    /// every store ranks and sums them here, one way. Buckets outside `0..<buckets` (a damaged
    /// time) are left out.
    package init(
        start: Double, bucketSeconds: Double, buckets: Int, top: Int,
        counts: [(bucket: Int, actionCase: String, source: String, count: Int)]
    ) {
        var total = [Int](repeating: 0, count: buckets)
        var cases: [String: [Int]] = [:], sources: [String: [Int]] = [:]
        for row in counts where (0..<buckets).contains(row.bucket) {
            total[row.bucket] += row.count
            cases[row.actionCase, default: total.map { _ in 0 }][row.bucket] += row.count
            sources[row.source, default: total.map { _ in 0 }][row.bucket] += row.count
        }
        self.init(start: start, bucketSeconds: bucketSeconds, total: total, cases: Self.series(cases, top: top), sources: Self.series(sources, top: top))
    }

    /// The `top` largest series by total, most first (ties by name), then the rest summed.
    private static func series(_ counts: [String: [Int]], top: Int) -> [Series] {
        let ranked = counts.map { (name: $0.key, counts: $0.value, sum: $0.value.reduce(0, +)) }
            .sorted { ($0.sum, $1.name) > ($1.sum, $0.name) }
        var result = ranked.prefix(top).map { Series(name: $0.name, counts: $0.counts) }
        let rest = ranked.dropFirst(top)
        if let first = rest.first {
            let sum = rest.dropFirst().reduce(first.counts) { partial, next in zip(partial, next.counts).map(+) }
            result.append(Series(name: "other", counts: sum))
        }
        return result
    }
}
