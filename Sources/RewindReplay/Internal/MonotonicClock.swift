#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Nanoseconds of a clock that never steps, read directly: the profile reads it twice per
/// action, and `ContinuousClock.now` with its `Duration` arithmetic costs several times a
/// bare `clock_gettime` (whose own cost ``ReplayProfile/timerOverheadNanoseconds`` subtracts).
enum MonotonicClock {
    @inline(__always)
    static func nanoseconds() -> UInt64 {
        #if canImport(Darwin)
        clock_gettime_nsec_np(CLOCK_UPTIME_RAW)
        #else
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
        #endif
    }

    /// What one reading costs, as the median of many back-to-back pairs: the part of every
    /// timed interval that is the clock rather than the code between its two readings.
    static func overhead() -> UInt64 {
        var pairs: [UInt64] = []
        pairs.reserveCapacity(1_001)
        for _ in 0..<1_001 {
            let start = nanoseconds()
            pairs.append(nanoseconds() &- start)
        }
        pairs.sort()
        return pairs[pairs.count / 2]
    }
}
