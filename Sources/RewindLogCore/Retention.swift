import Foundation

/// How much history a log keeps. Trimming removes the oldest events, and always cuts at a
/// snapshot, so what remains still replays from the snapshot at its new start. A live session
/// — one a writer is recording, in this process or another (see the Recording article) — is
/// never removed, nor the snapshot it continues from: it holds the cut at its latest snapshot
/// until it writes another, so the limits are approximate while a writer is idle. The space the
/// removed rows took goes back to the file system (the file shrinks), and seqs and session ids
/// are never reused, even when every event goes.
///
/// The binary codec's `symbols` table is kept whole: it holds one row per field or case name
/// of the app's types (a few hundred at most, whatever the history's length; a dictionary's
/// keys are written inline in its payload, so they go with it), and binary payloads do not say
/// which of their numbers are keys without the app's types, so a trim could not tell which
/// names the remaining payloads still use.
///
/// ```swift
/// var configuration = RecorderConfiguration<ShopState, ShopAction>()
/// configuration.retention = Retention(maxEvents: 100_000, maxAge: .seconds(7 * 86_400))
/// ```
public struct Retention: Sendable, Hashable {
    /// Keep at most about this many events (trimming cuts at the snapshot before the limit).
    public var maxEvents: Int?
    /// Keep at most about this many bytes of event payloads (an event whose payload is stored
    /// once for every event that repeats it counts the few bytes of its reference).
    public var maxBytes: Int?
    /// Keep events younger than this.
    public var maxAge: Duration?
    /// A recorder checks retention after this many commits, once it has caught up with the app
    /// (nothing buffered), or after four times as many while it has not: a check reads the
    /// sizes of the log's newest payloads, up to the byte limit (5–15 ms during the bench's
    /// burst of 100,000 shop actions), and a dispatch waiting for room would wait for it too.
    /// A check removes at most 100,000 events, in one transaction; while more must go (a large
    /// log from before a limit was set), the recorder removes another step after each commit,
    /// as it catches up. On a 1 GB log of 18 million events over the default limits, a step
    /// took 166 ms (median; 735 ms at most) and the 179 steps 32 s in all, where one
    /// transaction had held the writer for 44 s.
    public var checkEvery: Int
    /// The events one step of trimming removes at most (`EventLog.trim(to:now:removingAtMost:)`):
    /// what the recorder's writer removes per commit while a log is over its limits. Tests
    /// lower it to watch the steps on a small log.
    package var eventsPerStep = 100_000

    /// What a recorder keeps unless told otherwise (``RecorderConfiguration/retention``): about
    /// 14 days, in at most about 4 MB of event payloads — a phone's budget, not a server's.
    ///
    /// Chosen from the shop example app recorded by `rewind demo` with the default snapshot
    /// settings: 5,000 actions take 356 KiB on disk (78 KiB of payloads), 20,000 take 1.1 MiB
    /// (280 KiB), 100,000 take 5.2 MiB (1.3 MiB): about 55 bytes an action on disk, a quarter of
    /// them payload. The budget assumes (it is not measured from users) that a heavy tester's
    /// day of the shop — a few hours of use, effects included — is about 20,000 actions: 14
    /// such days are then about 280,000 actions, about 3.7 MB of payloads and 15 MB on disk. At
    /// a few thousand actions a day, age cuts first.
    /// An app with larger actions reaches the byte limit sooner, with less overhead per action.
    public static let `default` = Retention(maxBytes: 4_000_000, maxAge: .seconds(14 * 86_400))

    /// Creates a policy; a `nil` limit is no limit.
    public init(maxEvents: Int? = nil, maxBytes: Int? = nil, maxAge: Duration? = nil, checkEvery: Int = 64) {
        // Negative limits keep nothing, as 0 does (and cannot overflow the seq arithmetic).
        self.maxEvents = maxEvents.map { max(0, $0) }
        self.maxBytes = maxBytes.map { max(0, $0) }
        self.maxAge = maxAge
        self.checkEvery = max(1, checkEvery)
    }
}
