import Foundation
import Rewind
public import RewindLog

/// Steps through a session's events, yielding each with the state after it; memory stays flat.
public struct ReplayCursor<State: Codable & Sendable, Action: Codable & Sendable>: Sendable {
    let replayer: Replayer<State, Action>
    let reader: SessionReader
    /// The state after the last step (before the first, the state before `from`).
    public private(set) var state: State
    private var events: EventCursor?

    init(replayer: Replayer<State, Action>, reader: SessionReader, state: State, from: Int64, through: Int64) {
        self.replayer = replayer
        self.reader = reader
        self.state = state
        events = from <= through ? replayer.log.events(EventFilter(seqs: from...through, session: reader.session.id), pageSize: 4_096) : nil
    }

    /// The next step, or `nil` at the end of the session.
    public mutating func next() throws(EventLogError) -> ReplayStep<State, Action>? {
        guard let event = try events?.next() else { return nil }
        let action = try reader.action(of: event, as: Action.self)
        replayer.reducer(&state, action)
        return ReplayStep(event: event, action: action, state: state)
    }
}
