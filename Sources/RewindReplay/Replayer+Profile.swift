import Rewind
public import RewindLog

extension Replayer {
    /// Replays sessions and times each action's reducer: per case, the count, median, 99th
    /// percentile and total; and the slowest actions. Nothing is read from the recording's
    /// clock: the times are this build's, on this machine.
    ///
    /// Each session is folded from its snapshot nearest to `from` (its initial state by
    /// default), so the states every reducer sees are the ones the app saw. Memory stays flat
    /// however long the sessions: a histogram per case and the `slowest` actions.
    ///
    /// - Parameters:
    ///   - ids: The sessions (default: every session with events), each replayed on its own.
    ///   - from: The first seq timed (earlier ones are folded only to reach it).
    ///   - through: The last seq timed.
    ///   - slowest: How many of the slowest actions to keep.
    /// - Throws: `EventLogError.sessionNotFound` for a session the log does not hold; what
    ///   replay throws for an event that does not decode (unless the options skip those).
    public func profile(
        sessions ids: [Int64]? = nil, from: Int64? = nil, through: Int64? = nil, slowest: Int = 10
    ) throws(EventLogError) -> ReplayProfile {
        var chosen: [LogSession] = []
        if let ids {
            for id in ids { chosen.append(try log.session(id)) }
        } else {
            chosen = try log.sessions()
        }
        let overhead = MonotonicClock.overhead()
        let started = MonotonicClock.nanoseconds()
        var costs: [String: DurationHistogram] = [:]
        var slow = SlowestActions(keeping: max(0, slowest))
        var actions = 0
        var reducerTime: UInt64 = 0
        var replayed: [Int64] = []
        for session in chosen {
            guard let range = session.seqRange else { continue }
            let first = max(from ?? range.lowerBound, range.lowerBound), last = min(through ?? range.upperBound, range.upperBound)
            guard first <= last else { continue }
            replayed.append(session.id)
            let reader = try reader(for: session)
            let start = try reader.state(State.self, atOrBefore: first - 1)
            var state = start.state
            // By the reader's case ids while the session is walked (no string per action); by
            // name across sessions.
            var inSession: [Int: (name: String, times: DurationHistogram)] = [:]
            var stats = ReplayStats()
            try forEachDecodedEvent(reader, from: start.seq + 1, through: last, stats: &stats) { event, action in
                let before = MonotonicClock.nanoseconds()
                reducer(&state, action)
                let spent = MonotonicClock.nanoseconds() &- before
                guard event.seq >= first else { return .continue }
                let time = spent > overhead ? spent - overhead : 0
                inSession[event.actionID, default: (event.actionCase, DurationHistogram())].times.record(time)
                if slow.admits(time), let name = inSession[event.actionID]?.name {
                    slow.insert(ReplayProfile.SlowAction(seq: event.seq, session: session.id, actionCase: name, nanoseconds: time))
                }
                return .continue
            }
            for (name, times) in inSession.values {
                costs[name, default: DurationHistogram()].merge(times)
                actions += times.count
                reducerTime &+= times.total
            }
        }
        let cases = costs.map { name, histogram in
            ReplayProfile.CaseCost(
                actionCase: name, count: histogram.count, p50Nanoseconds: histogram.percentile(0.5), p99Nanoseconds: histogram.percentile(0.99),
                maxNanoseconds: histogram.maximum, totalNanoseconds: histogram.total
            )
        }
        return ReplayProfile(
            sessions: replayed, actions: actions, reducerNanoseconds: reducerTime,
            replayNanoseconds: MonotonicClock.nanoseconds() &- started, timerOverheadNanoseconds: overhead,
            cases: cases.sorted { ($0.totalNanoseconds, $1.actionCase) > ($1.totalNanoseconds, $0.actionCase) },
            slowest: slow.sorted
        )
    }
}
/// The `capacity` slowest actions seen so far.
private struct SlowestActions {
    let capacity: Int
    private var kept: [ReplayProfile.SlowAction] = []

    init(keeping capacity: Int) { self.capacity = capacity }

    /// Whether an action this slow would be kept: cheap, so only those build their entry.
    func admits(_ nanoseconds: UInt64) -> Bool {
        capacity > 0 && (kept.count < capacity || nanoseconds > threshold)
    }

    /// The fastest kept, once full.
    private var threshold: UInt64 = 0

    mutating func insert(_ action: ReplayProfile.SlowAction) {
        if kept.count == capacity, let index = kept.indices.min(by: { Self.faster(kept[$0], kept[$1]) }) { kept.remove(at: index) }
        kept.append(action)
        if kept.count == capacity { threshold = kept.min(by: Self.faster)!.nanoseconds }
    }

    /// The slowest first; among equals, the earlier seq first.
    var sorted: [ReplayProfile.SlowAction] { kept.sorted { Self.faster($1, $0) } }

    /// Whether `a` ranks below `b`: faster, or as fast and later.
    private static func faster(_ a: ReplayProfile.SlowAction, _ b: ReplayProfile.SlowAction) -> Bool {
        (a.nanoseconds, b.seq) < (b.nanoseconds, a.seq)
    }
}
