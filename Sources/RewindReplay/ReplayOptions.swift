public import RewindLog

/// How a ``Replayer`` treats what it reads.
public struct ReplayOptions: Sendable {
    /// Skip events whose action no longer decodes (counted in ``ReplayStats``) instead of
    /// stopping with the error that names the seq, the case and the decoding path.
    public var skipUndecodable = false
    /// The app's current schema versions and the upgrades for older payloads; `nil` decodes
    /// payloads as they are.
    public var upgrades: SchemaUpgrades?
    /// Where the current types' shapes come from, to compare them with the ones each session
    /// recorded (`.none` skips the check).
    public var typeShapes: SessionShapes.Source = .generatedOrProbed
    /// Told, once per session a replayer reads, how its types changed since it was recorded
    /// when the versions and ``upgrades`` do not account for it (`SchemaDrift`); `nil` stays
    /// silent. By default it prints a warning to standard error.
    public var onSchemaDrift: (@Sendable (SchemaDrift) -> Void)? = SchemaDrift.printWarning
    /// Called every ``progressInterval`` events during long replays.
    public var progress: (@Sendable (ReplayProgress) -> Void)?
    /// How many events between progress reports.
    public var progressInterval = 50_000

    /// The defaults: stop at undecodable events, no upgrades, warn of schema drift on standard
    /// error, no progress reports.
    public init() {}
}
