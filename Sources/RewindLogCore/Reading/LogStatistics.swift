/// What a log holds, in numbers: for `rewind stats` and for people deciding on retention.
public struct LogStatistics: Sendable, Equatable {
    /// How often each action case occurs, most frequent first.
    public var actionCases: [(name: String, count: Int)]
    /// How often each source location dispatched, most frequent first.
    public var sources: [(location: String, count: Int)]
    /// Events, sessions and snapshots.
    public var events: Int, sessions: Int, snapshots: Int
    /// The first and last event times, in seconds since 1970.
    public var timeSpan: ClosedRange<Double>?
    /// Bytes on disk: the file plus its write-ahead log (for a store's log, what its rows take
    /// in the store).
    public var bytesOnDisk: Int
    /// Bytes of event payloads (a payload stored once for the events that repeat it counts
    /// once) and of snapshot states, as the store keeps them.
    public var payloadBytes: Int, snapshotBytes: Int

    /// Statistics as a store counted them.
    package init(
        actionCases: [(name: String, count: Int)], sources: [(location: String, count: Int)], events: Int, sessions: Int, snapshots: Int,
        timeSpan: ClosedRange<Double>?, bytesOnDisk: Int, payloadBytes: Int, snapshotBytes: Int
    ) {
        (self.actionCases, self.sources, self.events, self.sessions, self.snapshots) = (actionCases, sources, events, sessions, snapshots)
        (self.timeSpan, self.bytesOnDisk, self.payloadBytes, self.snapshotBytes) = (timeSpan, bytesOnDisk, payloadBytes, snapshotBytes)
    }

    public static func == (lhs: LogStatistics, rhs: LogStatistics) -> Bool {
        lhs.actionCases.map(\.name) == rhs.actionCases.map(\.name) && lhs.actionCases.map(\.count) == rhs.actionCases.map(\.count)
            && lhs.sources.map(\.location) == rhs.sources.map(\.location) && lhs.sources.map(\.count) == rhs.sources.map(\.count)
            && lhs.events == rhs.events && lhs.sessions == rhs.sessions && lhs.snapshots == rhs.snapshots
            && lhs.timeSpan == rhs.timeSpan && lhs.bytesOnDisk == rhs.bytesOnDisk
            && lhs.payloadBytes == rhs.payloadBytes && lhs.snapshotBytes == rhs.snapshotBytes
    }
}
