// Foundation brings the C library's `clock_gettime` (Glibc on Linux, Darwin on Apple
// platforms, where `CLOCK_REALTIME` is the same clock `Date()` reads).
public import Foundation

/// The time stamp the dispatch path gives an action it hands off, in seconds since 1970.
@usableFromInline
enum EventTime {
    /// Now, by the recorder's clock. The system's clock is read directly — `CLOCK_REALTIME`,
    /// what `Date()` reads — without a call through the configuration's closure and without
    /// building a `Date`: on each dispatch that was a sixth of the recorder's time stamp.
    @inlinable
    static func now<State, Action>(by configuration: RecorderConfiguration<State, Action>) -> Double {
        guard configuration.stampsWithSystemClock else { return configuration.clock().timeIntervalSince1970 }
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1_000_000_000
    }
}
