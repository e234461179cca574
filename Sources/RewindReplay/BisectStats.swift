import RewindLog

/// The work a bisection did.
public struct BisectStats: Sendable, Equatable {
    /// Snapshots whose state was checked.
    public var snapshotsChecked = 0
    /// Events folded.
    public var eventsFolded = 0
}
