public import Rewind
import RewindCodingCore

/// The actions the dispatch path let go while the store was stuck: what a ``RecordingBuffer``
/// tallies, under its lock, from the moment the writer had committed nothing for the
/// recorder's `stallLimit` with the buffer full, until the writer takes the buffer again.
///
/// They come after every event in the buffer and before any the writer takes later, so the
/// writer counts them into the gap its session ends with, where they were dispatched. A store
/// that stays stuck for long would make a list of them grow without bound: the tally keeps
/// the first `keepAtMost` actions for `onFailure` and only counts the rest, by case, as a gap
/// does.
@usableFromInline
struct StalledActions<Action: Sendable>: Sendable {
    /// The first lost actions with their dispatch times, at most `keepAtMost`.
    var kept: [(action: DispatchedAction<Action>, time: Double)] = []
    /// The lost actions past `kept`: how many, of which cases, and when the last was dispatched.
    var others = 0
    var otherCases: [String: Int] = [:]
    var lastTime = 0.0
    /// Why they were let go (``EventLogError/stalled(path:seconds:)``, with how long the writer
    /// had gone without committing when the tally began).
    let error: EventLogError
    let keepAtMost: Int

    init(error: EventLogError, keepAtMost: Int) {
        self.error = error
        self.keepAtMost = keepAtMost
    }

    /// Counts one more action let go. (Not inlinable: it runs only while the store is stuck.)
    @usableFromInline
    mutating func add(_ dispatched: DispatchedAction<Action>, at time: Double) {
        lastTime = time
        if kept.count < keepAtMost {
            kept.append((dispatched, time))
        } else {
            others += 1
            otherCases[ActionCaseName.of(dispatched.action), default: 0] += 1
        }
    }
}
