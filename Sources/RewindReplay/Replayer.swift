import Foundation
import Rewind
import RewindLog

/// Rebuilds an app's state from a log by folding its reducer over the recorded actions.
///
/// Effects and middleware never run during replay: their results were recorded as actions.
/// Replay is therefore a pure fold, `state(at: n) = fold(reducer, snapshot(≤ n), events(…n))`,
/// always starting from the nearest snapshot at or before `n` in `n`'s session.
///
/// ```swift
/// let replayer = Replayer(log: try EventLog(path: "shop.rewind", mode: .readOnly), reducer: Shop.reducer)
/// let state = try replayer.state(at: 1_204)
/// if let broken = try replayer.bisect(where: { $0.cart.total < 0 }) {
///     print(broken.event.seq, broken.event.source, broken.diff ?? "")
/// }
/// ```
///
/// Sessions are separate timelines: each starts from its own initial snapshot. Reading streams
/// a page of events at a time, so memory stays flat however long the log.
public struct Replayer<State: Codable & Sendable, Action: Codable & Sendable>: Sendable {
    /// The log replayed.
    public let log: EventLog
    /// The app's reducer.
    public let reducer: Reducer<State, Action>
    /// How to treat what is read.
    public var options: ReplayOptions

    /// Creates a replayer.
    ///
    /// - Parameters:
    ///   - log: The log (read-only is enough).
    ///   - reducer: The app's reducer.
    ///   - options: Skipping, upgrades, progress.
    public init(log: EventLog, reducer: Reducer<State, Action>, options: ReplayOptions = ReplayOptions()) {
        self.log = log
        self.reducer = reducer
        self.options = options
    }

    // MARK: - Time travel

    /// The state after event `seq`, folded from the nearest snapshot at or before it.
    ///
    /// - Throws: ``EventLogError/seqNotFound(path:seq:available:)`` for a seq the log does not
    ///   hold; a decoding error naming the seq and case of an event that no longer decodes.
    public func state(at seq: Int64) throws(EventLogError) -> State {
        try stateAndStats(at: seq).state
    }

    /// The state after event `seq` and what it took to get there.
    public func stateAndStats(at seq: Int64) throws(EventLogError) -> (state: State, stats: ReplayStats) {
        let session = try log.uncountedSession(containing: seq)
        return try fold(session: session, through: seq)
    }

    /// A session's state before its first event.
    public func initialState(session id: Int64) throws(EventLogError) -> State {
        let session = try log.uncountedSession(id)
        return try startingPoint(session: session, atOrBefore: session.baseSeq).state
    }

    /// A session's state after its last event.
    ///
    /// - Parameters:
    ///   - id: The session.
    ///   - fromStart: Fold every event from the session's initial state, ignoring later
    ///     snapshots (to measure or check a full replay); by default replay starts from the
    ///     nearest snapshot.
    public func finalState(session id: Int64, fromStart: Bool = false) throws(EventLogError) -> State {
        let session = try log.uncountedSession(id)
        let last = session.seqRange?.upperBound ?? session.baseSeq
        guard fromStart else { return try fold(session: session, through: last).state }
        var state = try startingPoint(session: session, atOrBefore: session.baseSeq).state
        guard last > session.baseSeq else { return state }
        var stats = ReplayStats(startedFromSnapshot: session.baseSeq)
        try forEachAction(session: session, in: (session.baseSeq + 1)...last, stats: &stats) { _, action in
            reducer(&state, action)
        }
        return state
    }

    /// Steps through a session's events from `seq` on, yielding each with the state after it.
    ///
    /// - Parameters:
    ///   - session: The session.
    ///   - seq: The first event to yield (default: the session's first).
    /// - Returns: A cursor; each `next()` folds one more event.
    public func steps(session id: Int64, from seq: Int64? = nil) throws(EventLogError) -> ReplayCursor<State, Action> {
        let session = try log.uncountedSession(id)
        let first = max(seq ?? session.baseSeq + 1, session.baseSeq + 1)
        let start = try fold(session: session, through: first - 1)
        let last = session.seqRange?.upperBound ?? session.baseSeq
        return ReplayCursor(replayer: self, session: session, state: start.state, from: first, through: last)
    }

    // MARK: - Folding

    /// The snapshot to start from and its decoded state.
    func startingPoint(session: LogSession, atOrBefore seq: Int64) throws(EventLogError) -> (seq: Int64, state: State) {
        guard let snapshot = try log.snapshot(session: session.id, atOrBefore: seq) else {
            throw .noSnapshot(path: log.path, session: session.id, seq: seq)
        }
        let codec = try codec(of: session)
        var data = snapshot.state
        if let (app, upcaster) = options.upgrades, session.app.stateSchemaVersion < app.stateSchemaVersion, let upgrade = upcaster.state {
            do { data = try upgrade(data, session.app.stateSchemaVersion) } catch {
                throw .decodingFailed(path: log.path, seq: snapshot.seq, actionCase: "\(snapshot.kind) snapshot", codingPath: "", reason: "the upcaster failed: \(error)")
            }
        }
        var upgraded = snapshot
        upgraded.state = data
        return (snapshot.seq, try upgraded.decodeState(as: State.self, codec: codec, path: log.path))
    }

    /// Folds `session` from its nearest snapshot through `seq`.
    func fold(session: LogSession, through seq: Int64) throws(EventLogError) -> (state: State, stats: ReplayStats) {
        let start = try startingPoint(session: session, atOrBefore: seq)
        var state = start.state
        var stats = ReplayStats(startedFromSnapshot: start.seq)
        guard seq > start.seq else { return (state, stats) }
        try forEachAction(session: session, in: (start.seq + 1)...seq, stats: &stats) { _, action in
            reducer(&state, action)
        }
        return (state, stats)
    }

    /// Decodes and hands over each action of `session` in `seqs`, with its seq, skipping the
    /// undecodable ones when asked to, and reporting progress. Reads through the log's raw
    /// fast path: callers that need an event's source fetch it for the few seqs they report.
    func forEachAction(
        session: LogSession,
        in seqs: ClosedRange<Int64>,
        skipping skipped: Set<Int64> = [],
        stats: inout ReplayStats,
        _ body: (_ seq: Int64, _ action: Action) throws(EventLogError) -> Void
    ) throws(EventLogError) {
        let codec = try codec(of: session)
        try log.forEachRawEvent(session: session.id, in: seqs) { event throws(EventLogError) in
            if !skipped.isEmpty, skipped.contains(event.seq) { return }
            let action: Action
            do throws(EventLogError) {
                action = try decode(event, session: session, codec: codec)
            } catch where options.skipUndecodable {
                stats.skipped.append(.init(seq: event.seq, actionCase: event.actionCase, reason: "\(error)"))
                return
            }
            try body(event.seq, action)
            stats.folded += 1
            if let progress = options.progress, stats.folded % max(1, options.progressInterval) == 0 {
                progress(ReplayProgress(seq: event.seq, target: seqs.upperBound, folded: stats.folded))
            }
        }
    }

    func decode(_ event: RawEvent, session: LogSession, codec: any PayloadCodec) throws(EventLogError) -> Action {
        if let (app, upcaster) = options.upgrades, session.app.actionSchemaVersion < app.actionSchemaVersion,
           let upgrade = upcaster.action, let payload = event.payload {
            // Upgrading works on Data; only sessions recorded at older versions take this path.
            let upgraded: Data
            do { upgraded = try upgrade(Data(payload), session.app.actionSchemaVersion) } catch {
                throw .decodingFailed(path: log.path, seq: event.seq, actionCase: event.actionCase, codingPath: "", reason: "the upcaster failed: \(error)")
            }
            return try DecodingFailure.map(path: log.path, seq: event.seq, actionCase: event.actionCase) {
                try codec.decode(Action.self, from: upgraded)
            }
        }
        return try event.decodeAction(as: Action.self, codec: codec, path: log.path)
    }

    /// Decodes an event's action with its session's codec (and upgrades, when set).
    public func decode(_ event: LoggedEvent, session: LogSession) throws(EventLogError) -> Action {
        try decode(event, session: session, codec: codec(of: session))
    }

    func decode(_ event: LoggedEvent, session: LogSession, codec: any PayloadCodec) throws(EventLogError) -> Action {
        var event = event
        if let (app, upcaster) = options.upgrades, session.app.actionSchemaVersion < app.actionSchemaVersion,
           let upgrade = upcaster.action, let payload = event.payload {
            do { event.payload = try upgrade(payload, session.app.actionSchemaVersion) } catch {
                throw .decodingFailed(path: log.path, seq: event.seq, actionCase: event.actionCase, codingPath: "", reason: "the upcaster failed: \(error)")
            }
        }
        return try event.decodeAction(as: Action.self, codec: codec, path: log.path)
    }

    /// One session, or all of them in order.
    func sessionsToReplay(_ id: Int64?) throws(EventLogError) -> [LogSession] {
        if let id { return [try log.uncountedSession(id)] }
        return try log.sessions()
    }

    func codec(of session: LogSession) throws(EventLogError) -> any PayloadCodec {
        guard let codec = log.codecs[session.codec] else {
            throw .unknownCodec(path: log.path, session: session.id, codec: session.codec)
        }
        return codec
    }
}

/// Steps through a session's events, yielding each with the state after it; memory stays flat.
public struct ReplayCursor<State: Codable & Sendable, Action: Codable & Sendable>: Sendable {
    let replayer: Replayer<State, Action>
    let session: LogSession
    /// The state after the last step (before the first, the state before `from`).
    public private(set) var state: State
    private var events: EventCursor
    private var codec: (any PayloadCodec)?

    init(replayer: Replayer<State, Action>, session: LogSession, state: State, from: Int64, through: Int64) {
        self.replayer = replayer
        self.session = session
        self.state = state
        events = replayer.log.events(EventFilter(seqs: from...max(from, through), session: session.id), pageSize: 4_096)
        if from > through { events = replayer.log.events(EventFilter(seqs: 1...0)) }
    }

    /// The next step, or `nil` at the end of the session.
    public mutating func next() throws(EventLogError) -> ReplayStep<State, Action>? {
        if codec == nil { codec = try replayer.codec(of: session) }
        guard let event = try events.next() else { return nil }
        let action = try replayer.decode(event, session: session, codec: codec!)
        replayer.reducer(&state, action)
        return ReplayStep(event: event, action: action, state: state)
    }
}
