/// Durations in nanoseconds, counted in buckets a sixty-fourth of a power of two wide: a
/// percentile read from it is within 0.8 % of the exact one, in at most 3,776 counters
/// however many durations it holds (a profile of a billion actions keeps the same memory
/// as one of a thousand). Below 64 ns, each nanosecond is its own bucket.
struct DurationHistogram: Sendable {
    private(set) var count = 0
    private(set) var total: UInt64 = 0
    private(set) var maximum: UInt64 = 0
    private var buckets: [UInt32] = []

    mutating func record(_ nanoseconds: UInt64) {
        count += 1
        total &+= nanoseconds
        maximum = max(maximum, nanoseconds)
        let index = Self.bucket(of: nanoseconds)
        if index >= buckets.count { buckets.append(contentsOf: repeatElement(0, count: index + 1 - buckets.count)) }
        // A bucket holding more than four billion durations saturates rather than traps.
        buckets[index] = buckets[index] == .max ? .max : buckets[index] + 1
    }

    /// Adds every duration `other` holds.
    mutating func merge(_ other: DurationHistogram) {
        count += other.count
        total &+= other.total
        maximum = max(maximum, other.maximum)
        if other.buckets.count > buckets.count { buckets.append(contentsOf: repeatElement(0, count: other.buckets.count - buckets.count)) }
        for (index, inBucket) in other.buckets.enumerated() {
            let (sum, overflow) = buckets[index].addingReportingOverflow(inBucket)
            buckets[index] = overflow ? .max : sum
        }
    }

    /// The duration at `fraction` (0.5 for the median) of the sorted durations: the middle of
    /// its bucket, never above the largest duration recorded (which the last rank is, exactly).
    func percentile(_ fraction: Double) -> UInt64 {
        guard count > 0 else { return 0 }
        let rank = max(1, Int((fraction * Double(count)).rounded(.up)))
        if rank >= count { return maximum }
        var seen = 0
        for (index, inBucket) in buckets.enumerated() {
            seen += Int(inBucket)
            if seen >= rank { return min(Self.middle(of: index), maximum) }
        }
        return maximum
    }

    static func bucket(of nanoseconds: UInt64) -> Int {
        guard nanoseconds >= 64 else { return Int(nanoseconds) }
        let octave = 63 - nanoseconds.leadingZeroBitCount // 6 and up
        let step = nanoseconds >> (octave - 6) // 64 to 127: the top seven bits
        return 64 + (octave - 6) * 64 + Int(step - 64)
    }

    static func middle(of bucket: Int) -> UInt64 {
        guard bucket >= 64 else { return UInt64(bucket) }
        let octave = (bucket - 64) / 64 + 6, step = UInt64((bucket - 64) % 64 + 64)
        let width: UInt64 = 1 << (octave - 6)
        return step * width + width / 2
    }
}
