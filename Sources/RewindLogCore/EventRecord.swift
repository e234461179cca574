public import Foundation
public import Rewind

/// An action to append to a log, with its source and the time it was dispatched.
public struct EventRecord<Action: Sendable>: Sendable {
    /// The action.
    public var action: Action
    /// Where it was dispatched from (its `info` is stored in the event's `info` column).
    public var source: ActionSource
    /// When it was dispatched.
    public var time: Date

    /// Creates a record.
    public init(_ action: Action, source: ActionSource, time: Date = Date()) {
        self.action = action
        self.source = source
        self.time = time
    }
}
