public import Rewind
public import RewindLog

extension Store where State: Codable, Action: Codable {
    /// A store that starts where a recorded session was: the state after event `seq`, replayed
    /// from the log — for a SwiftUI preview of a user's moment, or an app launched into it.
    ///
    /// <!-- snippet: requires SwiftUI -->
    /// ```swift
    /// #Preview("bug 1234, before the total went negative") {
    ///     let log = try! EventLog(path: Bundle.main.path(forResource: "bug-1234", ofType: "rewind")!, mode: .readOnly)
    ///     CartView(store: try! Store(restoring: log, at: 41, reducer: appReducer))
    /// }
    /// ```
    ///
    /// Only the state is restored: the store starts with no effects running and nothing
    /// recorded, and `middleware` (a recorder, the app's effects) is bound to it as to any new
    /// store, from the restored state on.
    ///
    /// - Parameters:
    ///   - log: The log: a file (read-only is enough), a store's log read in place, or a report
    ///     (`rewind export` JSON Lines) imported with `EventLog.importLog(from:to:)`.
    ///   - seq: The event after which to start. `nil`: the last event of the log's latest
    ///     session — or, in a session without events, its initial state.
    ///   - reducer: The app's reducer.
    ///   - middleware: Bound to the new store.
    ///   - options: How to read the log (upgrades of older schemas, skipping).
    /// - Throws: `EventLogError.seqNotFound` for a seq the log does not hold, a decoding error
    ///   naming the seq of an event that no longer decodes, `EventLogError.failed` for a log
    ///   without sessions.
    public convenience init(
        restoring log: any LogReader,
        at seq: Int64? = nil,
        reducer: Reducer<State, Action>,
        middleware: Middleware<State, Action> = .none,
        options: ReplayOptions = ReplayOptions()
    ) throws(EventLogError) {
        let replayer = Replayer(log: log, reducer: reducer, options: options)
        let state: State
        if let seq {
            state = try replayer.state(at: seq)
        } else {
            guard let latest = try log.sessions().max(by: { $0.id < $1.id }) else {
                throw EventLogError.failed(path: log.path, reason: "the log holds no session to restore")
            }
            if let last = latest.seqRange?.upperBound {
                state = try replayer.state(at: last)
            } else {
                state = try replayer.initialState(session: latest.id)
            }
        }
        self.init(initialState: state, reducer: reducer, middleware: middleware)
    }
}
