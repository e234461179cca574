import RewindLog

/// Where a long replay is.
public struct ReplayProgress: Sendable, Equatable {
    /// The seq just folded.
    public var seq: Int64
    /// The seq the replay goes to.
    public var target: Int64
    /// Events folded so far.
    public var folded: Int
}
