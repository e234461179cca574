import Foundation
public import Rewind
public import RewindLog
import Synchronization

/// Rebuilds an app's state from a log by folding its reducer over the recorded actions.
///
/// Effects and middleware never run during replay: their results were recorded as actions.
/// Replay is therefore a pure fold, `state(at: n) = fold(reducer, snapshot(≤ n), events(…n))`,
/// always starting from the nearest snapshot at or before `n` in `n`'s session.
///
/// ```swift
/// let replayer = Replayer(log: try EventLog(path: "shop.rewind", mode: .readOnly), reducer: Shop.reducer)
/// let state = try replayer.state(at: 1_204)
/// if case let .found(broken, _) = try replayer.bisect(where: { $0.cart.total < 0 }) {
///     print(broken.event.seq, broken.event.source, broken.diff ?? "")
/// }
/// ```
///
/// Sessions are separate timelines: each starts from its own initial snapshot. Reading streams
/// a page of events at a time, so memory stays flat however long the log.
public struct Replayer<State: Codable & Sendable, Action: Codable & Sendable>: Sendable {
    /// The log replayed.
    public let log: any LogReader
    /// The app's reducer.
    public let reducer: Reducer<State, Action>
    /// How to treat what is read.
    public var options: ReplayOptions
    /// The policy the log was recorded under: ``verify(session:)`` scrubs replayed states the
    /// same way before comparing them with the (scrubbed) recorded snapshots.
    public var redaction: Redaction<State, Action>
    /// The sessions whose schema drift was checked, shared by copies: each is reported once.
    private let driftChecked = DriftChecks()

    /// Creates a replayer.
    ///
    /// - Parameters:
    ///   - log: The log: a file (read-only is enough) or any other `LogReader` (a store's log read in place).
    ///   - reducer: The app's reducer.
    ///   - options: Skipping, upgrades, progress.
    ///   - redaction: The policy the log was recorded under, for comparing states.
    public init(
        log: any LogReader, reducer: Reducer<State, Action>, options: ReplayOptions = ReplayOptions(),
        redaction: Redaction<State, Action> = .none
    ) {
        self.log = log
        self.reducer = reducer
        self.options = options
        self.redaction = redaction
    }

    // MARK: - Time travel

    /// The state after event `seq`, folded from the nearest snapshot at or before it.
    ///
    /// - Throws: `EventLogError.seqNotFound(path:seq:available:)` for a seq the log does not
    ///   hold; a decoding error naming the seq and case of an event that no longer decodes.
    public func state(at seq: Int64) throws(EventLogError) -> State {
        try stateAndStats(at: seq).state
    }

    /// The state after event `seq` and what it took to get there.
    public func stateAndStats(at seq: Int64) throws(EventLogError) -> (state: State, stats: ReplayStats) {
        try fold(reader(for: log.session(containing: seq)), through: seq)
    }

    /// A session's state before its first event.
    public func initialState(session id: Int64) throws(EventLogError) -> State {
        try reader(for: log.session(id)).initialState(State.self).state
    }

    /// A session's state after its last event.
    ///
    /// - Parameters:
    ///   - id: The session.
    ///   - fromStart: Fold every event from the session's initial state, ignoring later
    ///     snapshots (to measure or check a full replay); by default replay starts from the
    ///     nearest snapshot.
    public func finalState(session id: Int64, fromStart: Bool = false) throws(EventLogError) -> State {
        let reader = try reader(for: log.session(id))
        let last = reader.lastSeq
        guard fromStart else { return try fold(reader, through: last).state }
        let initial = try reader.initialState(State.self)
        var stats = ReplayStats(startedFromSnapshot: initial.seq)
        return try fold(reader, from: initial, through: last, stats: &stats)
    }

    /// Steps through a session's events from `seq` on, yielding each with the state after it.
    ///
    /// - Parameters:
    ///   - id: The session to step through.
    ///   - seq: The first event to yield (default: the session's first).
    /// - Returns: A cursor; each `next()` folds one more event. A session without events
    ///   yields none.
    public func steps(session id: Int64, from seq: Int64? = nil) throws(EventLogError) -> ReplayCursor<State, Action> {
        let reader = try reader(for: log.session(id))
        let first = max(seq ?? reader.session.baseSeq + 1, reader.session.baseSeq + 1)
        // A session without events has no steps: its cursor holds the state of the latest
        // snapshot (its base one, or the one retention kept when it emptied the session).
        let start = try fold(reader, through: reader.session.seqRange == nil ? reader.lastSeq : min(first - 1, reader.lastSeq))
        return ReplayCursor(replayer: self, reader: reader, state: start.state, from: first, through: reader.lastSeq)
    }

    // MARK: - Folding

    /// The reader of `session`'s payloads, with this replayer's upgrades; the first time it
    /// reads a session, it reports the session's schema drift.
    func reader(for session: LogSession) throws(EventLogError) -> SessionReader {
        if let report = options.onSchemaDrift, driftChecked.sessions.withLock({ $0.insert(session.id).inserted }) {
            SessionReader.reportDrift(
                of: session, in: log, state: State.self, action: Action.self, upgrades: options.upgrades, typeShapes: options.typeShapes, to: report
            )
        }
        return try SessionReader(log: log, session: session, upgrades: options.upgrades, typeShapes: options.typeShapes)
    }

    /// How the action and state types changed since session `id` was recorded, by the rules
    /// of `SchemaDrift` and with this replayer's ``ReplayOptions/upgrades``.
    public func schemaDrift(session id: Int64) throws(EventLogError) -> [SchemaDrift] {
        try log.schemaDrift(session: id, state: State.self, action: Action.self, upgrades: options.upgrades, shapes: options.typeShapes)
    }

    /// Folds the session from its nearest snapshot at or before `seq` through `seq`.
    func fold(_ reader: SessionReader, through seq: Int64) throws(EventLogError) -> (state: State, stats: ReplayStats) {
        let start = try reader.state(State.self, atOrBefore: seq)
        var stats = ReplayStats(startedFromSnapshot: start.seq)
        let state = try fold(reader, from: start, through: seq, stats: &stats)
        return (state, stats)
    }

    /// Folds every action after `start` through `last` into `start`'s state (the one fold,
    /// ``SessionReader/fold(_:from:through:skipping:undecodable:folded:)``), tallying `stats`.
    /// Progress names `target` as where the replay goes (a walk that folds stretch by
    /// stretch, as verify does, gives the walk's end); `last` by default.
    func fold(
        _ reader: SessionReader, from start: (seq: Int64, state: State), through last: Int64, reportingTo target: Int64? = nil,
        stats: inout ReplayStats
    ) throws(EventLogError) -> State {
        try tallying(through: target ?? last, into: &stats) { undecodable, folded throws(EventLogError) in
            try reader.fold(reducer, from: start, through: last, undecodable: undecodable, folded: folded)
        }
    }

    /// Hands over each decoded action of the reader's session from `first` through `last`
    /// (none when `first > last`), with its seq, until `body` stops; skips the undecodable ones
    /// when the options say so, and reports progress. Reads through the log's raw fast path:
    /// callers that need an event's source fetch it for the few seqs they report.
    ///
    /// - Returns: Whether `body` stopped the fold.
    @discardableResult
    func forEachAction(
        _ reader: SessionReader,
        from first: Int64,
        through last: Int64,
        skipping skipped: Set<Int64> = [],
        stats: inout ReplayStats,
        _ body: (_ seq: Int64, _ action: Action) throws(EventLogError) -> FoldStep
    ) throws(EventLogError) -> Bool {
        try forEachDecodedEvent(reader, from: first, through: last, skipping: skipped, stats: &stats) { event, action throws(EventLogError) in
            try body(event.seq, action)
        }
    }

    /// ``forEachAction(_:from:through:skipping:stats:_:)`` with each action's raw event: its
    /// case id, for walks that group actions by case.
    // Inlined into `forEachAction` for the same reason as `SessionReader.forEachDecodedEvent`:
    // no closure more per event on bisect's, what-if's and shrink's folds.
    @discardableResult @inline(__always)
    func forEachDecodedEvent(
        _ reader: SessionReader,
        from first: Int64,
        through last: Int64,
        skipping skipped: Set<Int64> = [],
        stats: inout ReplayStats,
        _ body: (_ event: RawEvent, _ action: Action) throws(EventLogError) -> FoldStep
    ) throws(EventLogError) -> Bool {
        try tallying(through: last, into: &stats) { undecodable, folded throws(EventLogError) in
            try reader.forEachDecodedEvent(Action.self, from: first, through: last, skipping: skipped, undecodable: undecodable) { event, action throws(EventLogError) in
                let step = try body(event, action)
                try folded(event.seq)
                return step
            }
        }
    }

    /// Runs a walk through `last` with what tallies it into `stats`: where undecodable events
    /// go (skipped and counted when the options say so, else `nil`: the walk stops), and what
    /// counts each action folded, reports progress, and stops a walk the options cancel.
    private func tallying<T>(
        through last: Int64,
        into stats: inout ReplayStats,
        _ walk: (
            _ undecodable: ((Int64, String, EventLogError) -> Void)?, _ folded: (Int64) throws(EventLogError) -> Void
        ) throws(EventLogError) -> T
    ) throws(EventLogError) -> T {
        var skippedEvents: [ReplayStats.SkippedEvent] = []
        var folded = stats.folded
        defer {
            stats.folded = folded
            stats.skipped += skippedEvents
        }
        let undecodable: ((Int64, String, EventLogError) -> Void)? = options.skipUndecodable
            ? { seq, actionCase, error in skippedEvents.append(.init(seq: seq, actionCase: actionCase, reason: "\(error)")) }
            : nil
        let progressInterval = Int64(max(1, options.progressInterval))
        let cancellationInterval = max(1, progressInterval / 10)
        return try walk(undecodable) { seq throws(EventLogError) in
            folded += 1
            // By seq, not by the count folded: a verify folds one stretch between snapshots at
            // a time, each shorter than the interval, and is still reported and stoppable.
            // Cancellation ten times as often as progress: a flag read, where a report may be a
            // lock and a store; a `--where` bisect's 1,000 steps take a second in a debug build,
            // and a loaded machine stretches that.
            guard seq % cancellationInterval == 0 else { return }
            if options.isCancelled?() == true { throw .cancelled(path: log.path) }
            guard seq % progressInterval == 0 else { return }
            options.progress?(ReplayProgress(seq: seq, target: last, folded: folded))
        }
    }

    /// Decodes an event's action with its session's codec (and upgrades, when set).
    public func decode(_ event: LoggedEvent) throws(EventLogError) -> Action {
        try reader(for: log.session(event.session)).action(of: event, as: Action.self)
    }

    /// One session, or all of them in order.
    func sessionsToReplay(_ id: Int64?) throws(EventLogError) -> [LogSession] {
        if let id { return [try log.session(id)] }
        return try log.sessions()
    }
}

/// The sessions a replayer has checked for schema drift.
private final class DriftChecks: Sendable {
    let sessions = Mutex<Set<Int64>>([])
}
