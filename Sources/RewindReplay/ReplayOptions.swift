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
