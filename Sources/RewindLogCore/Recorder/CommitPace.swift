/// How many events the writer takes from the hand-off at once while dispatch outruns it.
///
/// The writer frees the hand-off's room a take at a time, and commits a take before it takes
/// again: a dispatch that finds no room waits for the rest of that commit. A whole batch
/// (``RecorderConfiguration/batchSize``, 2,048 events) took 17–19 ms to commit in the bench's
/// burst of JSON actions on a slow day: more than a frame at 60 Hz, on an app's main thread. So
/// while dispatch outruns the writer — a dispatch already waits for room, or the rate the
/// hand-off filled at since the last take would fill the room a whole batch leaves before that
/// batch is committed — a take holds only what commits within ``target``. Otherwise a take is
/// a whole batch: fewer commits, each synced to disk, for an app whose bursts the buffer
/// absorbs.
///
/// What commits within the target comes from the commits before: their times fitted as a
/// fixed part (the sync, a server's round trips) and a part per event, the recent ones
/// weighing most. A paced take holds at most twice the largest commit measured (or the floor):
/// a line through small commits says little about a large one (a session's first commits run
/// cold, and a line through them once promised a whole batch in 3 ms that took 13). A store
/// whose fixed part alone reaches the target (a distant server) is not paced: smaller takes
/// would not commit sooner, only less at a time. Writer thread only.
struct CommitPace {
    /// Half a frame at 60 Hz.
    static let target: Duration = .milliseconds(8)
    /// How much each earlier commit's weight shrinks at the next one.
    static let forgetting = 0.8

    /// The commits' sums, each commit weighted by `forgetting` to the power of its age:
    /// weights, events, seconds, events², events × seconds.
    private var sums = (weight: 0.0, events: 0.0, seconds: 0.0, eventsSquared: 0.0, eventsSeconds: 0.0)
    /// The hand-off's pushes at the last take, and when.
    private var lastTake: (pushed: Int, at: ContinuousClock.Instant)?
    /// What a commit costs, in seconds, from the commits so far: a fixed part and a part per
    /// event; `nil` before any.
    private(set) var cost: (fixed: Double, perEvent: Double)?
    /// The fixed part the last line through commits of different sizes found.
    private var fixedFound: Double?
    /// Whether the next paced take is twice the floor, to tell a fixed part from a part per
    /// event (``fitted(floor:)``).
    private var probing = false
    /// The most events a measured commit held: a paced take holds at most twice as many (twice
    /// the floor after smaller ones: an idle app's commits of an event or two).
    private var largest = 0

    /// The least a paced take holds.
    static func floor(batch: Int) -> Int {
        max(1, batch / 16)
    }

    /// The most events to take now, out of `available`, at most `batch`. `capacity`: the
    /// hand-off's room; `pushed`: its pushes so far; `waiting`: whether a dispatch waits for
    /// room now.
    mutating func limit(available: Int, batch: Int, capacity: Int, pushed: Int, waiting: Bool, now: ContinuousClock.Instant) -> Int {
        let previous = lastTake
        lastTake = (pushed, now)
        let whole = min(batch, available)
        let floor = Self.floor(batch: batch)
        guard whole > floor else { return batch }
        guard let cost else {
            // Nothing measured yet: a whole batch waiting at the first take is a burst under
            // way; a take of the floor measures it.
            return waiting || available >= batch ? floor : batch
        }
        // Where the fixed part alone fills the target, smaller takes do not commit sooner.
        let target = Self.target.seconds
        guard cost.fixed < target, cost.perEvent > 0 else { return batch }
        if !waiting {
            // Would the hand-off fill the room a whole batch leaves while that batch commits?
            guard let previous else { return batch }
            let elapsed = (now - previous.at).seconds
            let rate = elapsed > 0 ? Double(pushed &- previous.pushed) / elapsed : 0
            let room = Double(capacity - (available - whole))
            guard rate * (cost.fixed + Double(whole) * cost.perEvent) > room else { return batch }
        }
        if probing { return min(batch, 2 * floor) }
        let fits = (target - cost.fixed) / cost.perEvent
        return Int(min(Double(batch), Double(2 * max(largest, floor)), max(Double(floor), fits)))
    }

    /// A commit of `events` events (a take that began with an event, not with a state to
    /// encode) lasted `duration`; `batch`: the configured batch size.
    mutating func committed(events: Int, batch: Int, in duration: Duration) {
        guard events > 0 else { return }
        largest = max(largest, events)
        let n = Double(events), t = duration.seconds
        let f = Self.forgetting
        sums = (
            sums.weight * f + 1, sums.events * f + n, sums.seconds * f + t,
            sums.eventsSquared * f + n * n, sums.eventsSeconds * f + n * t
        )
        cost = fitted(floor: Self.floor(batch: batch))
    }

    /// A commit's cost from the sums. Commits of sizes that differ widely (a spread of a third
    /// of their mean or more, as a take of the floor beside a whole batch) give a least-squares
    /// line, and with it the fixed part; commits of similar sizes (a paced burst's: a line
    /// through them takes any slowdown of the machine for a fixed part, and stopped pacing)
    /// are read with the fixed part found last (or none: the cautious reading, smaller takes,
    /// and the one that settles — a take sized from it grows while its commit is shorter than
    /// the target, `n = target / (fixed / n + perEvent)`). Time that does not grow with the
    /// events is all fixed where it reaches the target. Commits of the floor's size or less
    /// that already reach the target, before any line, ask for a probe: a take of twice the
    /// floor, whose line with them tells.
    private mutating func fitted(floor: Int) -> (fixed: Double, perEvent: Double) {
        probing = false
        let meanEvents = sums.events / sums.weight, meanSeconds = sums.seconds / sums.weight
        let variance = sums.eventsSquared / sums.weight - meanEvents * meanEvents
        if variance >= 0.1 * meanEvents * meanEvents {
            let slope = (sums.eventsSeconds / sums.weight - meanEvents * meanSeconds) / variance
            if slope > 0 {
                let fixed = max(0, meanSeconds - slope * meanEvents)
                fixedFound = fixed
                return (fixed, slope)
            }
            // Time that does not grow with the events: all fixed where it reaches the target;
            // below it, too noisy to tell (the first commits of a session run cold).
            if meanSeconds >= Self.target.seconds {
                fixedFound = meanSeconds
                return (meanSeconds, 0)
            }
        }
        if let fixedFound {
            let fixed = min(fixedFound, meanSeconds)
            return (fixed, (meanSeconds - fixed) / meanEvents)
        }
        // Takes of the floor's size already reach the target: all fixed, or all per event?
        // A take of twice the floor tells (the line through both), at the cost of one longer commit.
        probing = meanEvents <= Double(floor) && meanSeconds >= Self.target.seconds
        return (0, meanSeconds / meanEvents)
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    fileprivate var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
    }
}
