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
    /// Called during long replays at each seq folded that is a multiple of ``progressInterval``.
    public var progress: (@Sendable (ReplayProgress) -> Void)?
    /// How many seqs apart progress reports are.
    public var progressInterval = 50_000
    /// Asked ten times as often as progress is reported (at each seq folded that is a multiple
    /// of a tenth of ``progressInterval``): when it answers `true`, the replay stops with
    /// `EventLogError.cancelled` (a server whose client went away, a tool interrupted). `nil`:
    /// replays run to their end.
    public var isCancelled: (@Sendable () -> Bool)?

    /// The defaults: stop at undecodable events, no upgrades, warn of schema drift on standard
    /// error, no progress reports.
    public init() {}
}
