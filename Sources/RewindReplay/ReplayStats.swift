import RewindLog

/// What a replay did besides folding.
public struct ReplayStats: Sendable, Equatable {
    /// Events folded through the reducer.
    public var folded = 0
    /// Events skipped because they no longer decode: seq and case.
    public var skipped: [SkippedEvent] = []
    /// The snapshot the replay started from.
    public var startedFromSnapshot: Int64?

    /// An event that was skipped.
    public struct SkippedEvent: Sendable, Equatable {
        /// Its seq.
        public var seq: Int64
        /// Its case.
        public var actionCase: String
        /// Why it did not decode.
        public var reason: String
    }
}
