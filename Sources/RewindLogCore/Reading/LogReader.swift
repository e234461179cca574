public import Foundation

/// What every reader of a log asks of it: `Replayer` (in RewindReplay), the `rewind` tool,
/// the inspector and the test helpers read through this protocol, never through a store's own
/// tables. `EventLog` (a SQLite file) is the embedded implementation; RewindPostgres's
/// `PostgresLogReader` reads one log of a PostgreSQL store in place, with the same session
/// numbers, seqs and answers as the file it was pushed from.
///
/// ```swift
/// func lastState(of log: some LogReader) throws -> ShopState? {
///     guard let session = try log.sessions().last else { return nil }
///     return try Replayer(log: log, reducer: Shop.reducer).finalState(session: session.id)
/// }
/// ```
///
/// A reader is synchronous, like the file it was first made for: an implementation over a
/// network waits for its answers (never on Swift's cooperative pool) and throws
/// ``EventLogError`` naming itself by ``path`` when the store cannot answer. Reads stream a
/// page at a time, so memory stays flat however long the log; each call sees what had been
/// committed when it ran, so a log that grows is seen growing.
///
/// Asked about a session the log does not hold, a read finds nothing — no snapshot, no events,
/// no gaps, zero counts — as it does for an empty range or a count of 0 or less; only
/// ``session(_:)``, ``session(containing:)`` and ``LogReader/event(at:)`` say that what they
/// were asked for is not there.
///
/// What is built on these requirements, the same for every store — event cursors, decoding
/// with a session's codec, key and upgrades, schema drift, the check of encrypted values, the
/// portable export — lives in extensions of the protocol.
public protocol LogReader: AnyObject, Sendable {
    /// The log as messages and errors name it: a file's path, or a store's location without
    /// its password.
    var path: String { get }
    /// The codecs payloads are decoded with. A binary codec's symbols are the log's own: each
    /// reader has its own instances, taught the log's symbols as it reads.
    var codecs: PayloadCodecs { get }
    /// The keys encrypted sessions are opened with.
    var keys: LogKeys { get }

    /// The log's identity (the UUID that a push names it by); `nil` for a log without one
    /// (sessions recorded straight into a store).
    func identity() throws(EventLogError) -> UUID?
    /// The log schema version its rows read as (an export's header names it).
    func schemaVersion() throws(EventLogError) -> Int
    /// Every symbol the log's binary payloads use, in id order.
    func storedSymbols() throws(EventLogError) -> [CodecSymbol]

    /// Every session, in order.
    func sessions() throws(EventLogError) -> [LogSession]
    /// One session.
    ///
    /// - Throws: ``EventLogError/sessionNotFound(path:session:)``.
    func session(_ id: Int64) throws(EventLogError) -> LogSession
    /// The session that holds event `seq`.
    ///
    /// - Throws: ``EventLogError/seqNotFound(path:seq:available:)``.
    func session(containing seq: Int64) throws(EventLogError) -> LogSession
    /// The first and last seq of the log's events; `nil` without events.
    func seqRange() throws(EventLogError) -> ClosedRange<Int64>?
    /// The action and state shapes a session recorded (each `nil` when it recorded none).
    func shapes(session id: Int64) throws(EventLogError) -> SessionShapes
    /// The gaps recorders recorded (actions they lost), of one session or all, in order.
    func gaps(session: Int64?) throws(EventLogError) -> [LogGap]

    /// Up to `count` events that `filter` selects (its `limit` aside) with seqs after `seq`,
    /// in seq order, or the newest first — what ``events(_:pageSize:)`` pages through.
    func eventPage(_ filter: EventFilter, after seq: Int64, count: Int, newestFirst: Bool) throws(EventLogError) -> [LoggedEvent]
    /// Calls `body` with each event of `session` from `first` through `last`, in order, until it
    /// returns ``FoldStep/stop``: replay's hot path, a page at a time, with payloads borrowed
    /// for the call instead of copied.
    ///
    /// - Returns: Whether `body` stopped the walk.
    func forEachRawEvent(
        session: Int64, from first: Int64, through last: Int64, _ body: (RawEvent) throws(EventLogError) -> FoldStep
    ) throws(EventLogError) -> Bool
    /// The latest snapshot of `session` at or before `seq`, its state as the codec (or the
    /// session's seal) wrote it; `nil` when the session has none that early.
    func snapshot(session: Int64, atOrBefore seq: Int64) throws(EventLogError) -> LoggedSnapshot?
    /// Where `session`'s snapshots are (seq, kind and time; not the states), in seq order.
    func snapshotIndex(session: Int64) throws(EventLogError) -> [(seq: Int64, kind: String, time: Double)]

    /// Calls `body` with a reader of this log that sees it as it was at one moment, however long
    /// `body` reads while others write and trim: what a whole-log read such as the export needs
    /// to be consistent. A file opens a second connection held in one read transaction; a
    /// reader whose answers cannot change under it (the default) passes itself.
    func readingConsistently<T>(_ body: (any LogReader) throws(EventLogError) -> T) throws(EventLogError) -> T

    /// Counts and sizes of the log, or of the events of one session, a seq range and a time
    /// window (each `nil`: all). With a range or a window, `sessions` counts the sessions with
    /// events in it and `snapshots` those taken in it.
    func statistics(session: Int64?, seqs: ClosedRange<Int64>?, times: ClosedRange<Double>?) throws(EventLogError) -> LogStatistics
    /// Events over time, cut into `buckets` stretches (1–1000) of the selected events' time span,
    /// with the `top` cases and sources (1–100); `nil` when no event is selected.
    func activity(session: Int64?, seqs: ClosedRange<Int64>?, times: ClosedRange<Double>?, buckets: Int, top: Int) throws(EventLogError) -> LogActivity?
    /// Whether the log is sound: its store's own check, seqs without gaps, a snapshot per
    /// session, bounds that match the events, and every encrypted value it has the key of
    /// authenticating.
    func checkIntegrity() throws(EventLogError) -> IntegrityReport
}

extension LogReader {
    /// Passes itself: a reader whose answers cannot change under it (a store's log only grows).
    public func readingConsistently<T>(_ body: (any LogReader) throws(EventLogError) -> T) throws(EventLogError) -> T {
        try body(self)
    }
}

extension LogReader {
    /// The latest snapshot of `session`, at or before `seq` when given.
    public func snapshot(session: Int64) throws(EventLogError) -> LoggedSnapshot? {
        try snapshot(session: session, atOrBefore: .max)
    }

    /// Every recorded gap.
    public func gaps() throws(EventLogError) -> [LogGap] {
        try gaps(session: nil)
    }

    /// Counts and sizes of the whole log.
    public func statistics() throws(EventLogError) -> LogStatistics {
        try statistics(session: nil)
    }

    /// Counts and sizes of the log, or of one session.
    public func statistics(session: Int64?) throws(EventLogError) -> LogStatistics {
        try statistics(session: session, seqs: nil, times: nil)
    }

    /// Events over time, of the log or of one session (see
    /// ``activity(session:seqs:times:buckets:top:)``).
    public func activity(session: Int64?, buckets: Int, top: Int) throws(EventLogError) -> LogActivity? {
        try activity(session: session, seqs: nil, times: nil, buckets: buckets, top: top)
    }

    /// The events that match `filter`, in seq order, read a page at a time.
    ///
    /// - Parameters:
    ///   - filter: Which events.
    ///   - pageSize: How many events each read fetches at most (fewer for large payloads: see
    ///     ``EventCursor``).
    /// - Returns: A cursor over the events.
    public func events(_ filter: EventFilter = EventFilter(), pageSize: Int = 1_000) -> EventCursor {
        EventCursor(log: self, filter: filter, pageSize: pageSize)
    }

    /// The event at `seq`.
    ///
    /// - Throws: ``EventLogError/seqNotFound(path:seq:available:)`` when there is none.
    public func event(at seq: Int64) throws(EventLogError) -> LoggedEvent {
        guard let event = try eventPage(EventFilter(seqs: seq...seq), after: .min, count: 1, newestFirst: false).first else {
            throw .seqNotFound(path: path, seq: seq, available: try seqRange())
        }
        return event
    }

    /// The last `count` events that match `filter` below `seq`, in seq order: a page read
    /// backwards, for a view scrolling up through a long log (the inspector's timeline).
    ///
    /// - Parameters:
    ///   - filter: Which events (its `limit` is ignored: `count` bounds the page).
    ///   - seq: The page ends just before this seq.
    ///   - count: At most this many events.
    public func events(_ filter: EventFilter, before seq: Int64, count: Int) throws(EventLogError) -> [LoggedEvent] {
        guard seq > .min, count > 0 else { return [] }
        var filter = filter
        let low = filter.seqs?.lowerBound ?? .min, high = min(seq - 1, filter.seqs?.upperBound ?? .max)
        guard low <= high else { return [] }
        filter.seqs = low...high
        return try eventPage(filter, after: .min, count: count, newestFirst: true).reversed()
    }
}
