import Rewind

/// A loss the recorder's writer is tallying until it can record it: the actions of every batch
/// that could not be written since a write failed, with the error that caused the loss. It is
/// written as a ``LogGap`` together with the session recording resumes in (see
/// `RecorderWriter.resume(after:in:items:)`).
struct PendingGap<Action: Codable & Sendable> {
    var record: LogGap
    /// What caused the loss (the gap's reason).
    var error: EventLogError
    /// What the last attempt to record it failed with, reported for the actions lost since
    /// (a fresh state that cannot be encoded, say, rather than the disk that filled first).
    var latest: EventLogError

    init(session: Int64, afterSeq: Int64, error: EventLogError) {
        record = LogGap(session: session, afterSeq: afterSeq, lost: 0, cases: [:], reason: "\(error)", firstTime: 0, lastTime: 0, resumedSession: nil)
        self.error = error
        latest = error
    }

    /// Counts one more lost action, dispatched at `time`.
    mutating func add(_ dispatched: DispatchedAction<Action>, at time: Double) {
        if record.lost == 0 { record.firstTime = time }
        record.lost += 1
        record.cases[ActionCaseName.of(dispatched.action), default: 0] += 1
        record.lastTime = time
    }

    /// Counts every action among `items`.
    mutating func add<State: Codable & Sendable>(_ items: ArraySlice<RecordingBuffer<State, Action>.Item>) {
        for case let .event(dispatched, time) in items { add(dispatched, at: time.seconds) }
    }

    /// Counts the actions the dispatch path let go while the store was stuck.
    mutating func add(_ stalled: StalledActions<Action>) {
        for (dispatched, time) in stalled.kept { add(dispatched, at: time) }
        guard stalled.others > 0 else { return }
        if record.lost == 0 { record.firstTime = stalled.lastTime }
        record.lost += stalled.others
        for (name, count) in stalled.otherCases { record.cases[name, default: 0] += count }
        record.lastTime = stalled.lastTime
    }
}
