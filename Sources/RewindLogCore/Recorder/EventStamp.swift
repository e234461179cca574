// Foundation brings the C library's `clock_gettime` (Glibc on Linux, Darwin on Apple
// platforms, where `CLOCK_REALTIME` is the same clock `Date()` reads).
public import Foundation

/// The time stamp the dispatch path gives an action it hands off, as the clock gave it: made
/// seconds since 1970 (``seconds``) on the writer thread.
///
/// The system's clock is read directly — `CLOCK_REALTIME`, what `Date()` reads — without a
/// call through the configuration's closure and without building a `Date` (on each dispatch
/// that was a sixth of the recorder's time stamp), and its seconds and nanoseconds are kept as
/// the clock gave them: the division that makes them one `Double` is a few nanoseconds the
/// dispatch path would wait for, and the writer computes the same `Double` from them.
@usableFromInline
struct EventStamp: Sendable {
    /// The system clock's whole seconds; for an injected clock, the bits of its `Double`.
    @usableFromInline let whole: Int64
    /// The system clock's nanoseconds within the second; -1 for an injected clock.
    @usableFromInline let nanoseconds: Int32

    @inlinable
    init(whole: Int64, nanoseconds: Int32) {
        self.whole = whole
        self.nanoseconds = nanoseconds
    }

    /// Now, by the recorder's clock.
    @inlinable
    static func now<State, Action>(by configuration: RecorderConfiguration<State, Action>) -> EventStamp {
        guard configuration.stampsWithSystemClock else { return EventStamp(seconds: configuration.clock().timeIntervalSince1970) }
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return EventStamp(whole: Int64(spec.tv_sec), nanoseconds: Int32(truncatingIfNeeded: spec.tv_nsec))
    }

    /// A stamp of `seconds` since 1970, as an injected clock gives them.
    @inlinable
    init(seconds: Double) {
        self.init(whole: Int64(bitPattern: seconds.bitPattern), nanoseconds: -1)
    }

    /// Seconds since 1970: for the system clock, `Double(tv_sec) + Double(tv_nsec) / 1e9`.
    @inlinable
    var seconds: Double {
        guard nanoseconds >= 0 else { return Double(bitPattern: UInt64(bitPattern: whole)) }
        return Double(whole) + Double(nanoseconds) / 1_000_000_000
    }
}
