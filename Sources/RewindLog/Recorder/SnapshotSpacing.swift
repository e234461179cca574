/// How far apart periodic snapshots go: at least ``RecorderConfiguration/snapshotInterval``
/// actions, and, under a finite ``RecorderConfiguration/snapshotBudget``, far enough that the
/// events written between two snapshots outweigh the first of them `1 / budget` times.
///
/// A snapshot encodes the whole state, so a state that grows (messages, orders, history) makes
/// every snapshot dearer; at a fixed interval their total grows with the square of the
/// session's length. Spaced by their size, snapshots cost at most `budget` times the bytes (and
/// encoding time, which follows bytes) of the events between them, and a seek decodes one
/// snapshot and folds events worth at most `1 / budget` of it.
///
/// The writer keeps this tally, since only it sees encoded sizes; it turns the weighing into a
/// number of actions for the dispatch path, which alone knows the state to hand over and
/// should only count.
struct SnapshotSpacing {
    let interval: Int
    let budget: Double
    /// The last snapshot's size; 0 before the first periodic one of the session, so that one
    /// comes after `interval` actions.
    private var snapshotBytes = 0
    /// Bytes and count of the session's events so far, for their average size.
    private var eventBytes = 0
    private var events = 0

    /// About what a row costs besides its payload: seq, time, session, source and case ids.
    static let rowOverhead = 16

    init(interval: Int, budget: Double) {
        self.interval = interval
        self.budget = budget
    }

    /// After how many actions since the last snapshot the next is taken (`Int.max`: never).
    var actionsBetweenSnapshots: Int {
        guard interval > 0, budget > 0 else { return .max }  // `budget > 0` also rules out NaN
        guard budget.isFinite, snapshotBytes > 0, events > 0 else { return interval }
        let averageEvent = Double(eventBytes) / Double(events)
        let spacing = (Double(snapshotBytes) / (budget * averageEvent)).rounded(.up)
        return spacing < Double(Int.max / 2) ? max(interval, Int(spacing)) : .max / 2
    }

    mutating func wroteEvent(payloadBytes: Int) {
        eventBytes += payloadBytes + Self.rowOverhead
        events += 1
    }

    mutating func wroteSnapshot(bytes: Int) {
        snapshotBytes = bytes
    }
}
