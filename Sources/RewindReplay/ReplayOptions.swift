public import RewindLog

/// How a ``Replayer`` treats what it reads.
public struct ReplayOptions: Sendable {
    /// Skip events whose action no longer decodes (counted in ``ReplayStats``) instead of
    /// stopping with the error that names the seq, the case and the decoding path.
    public var skipUndecodable = false
    /// The app's current schema versions and the upgrades for older payloads; `nil` decodes
    /// payloads as they are.
    public var upgrades: SchemaUpgrades?
    /// Called every ``progressInterval`` events during long replays.
    public var progress: (@Sendable (ReplayProgress) -> Void)?
    /// How many events between progress reports.
    public var progressInterval = 50_000

    /// The defaults: stop at undecodable events, no upgrades, no progress reports.
    public init() {}
}

/// Where a long replay is.
public struct ReplayProgress: Sendable, Equatable {
    /// The seq just folded.
    public var seq: Int64
    /// The seq the replay goes to.
    public var target: Int64
    /// Events folded so far.
    public var folded: Int
}

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
