import Foundation
public import Rewind

/// A failure to record: what went wrong, and which actions are not (fully) in the log.
public struct RecorderFailure<Action: Sendable>: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public var error: EventLogError
    /// The actions that did not reach the log, or reached it without their payload (an action
    /// that failed to encode is logged with its case and source only), in dispatch order.
    public var unrecorded: [DispatchedAction<Action>]
    /// Actions lost past `unrecorded`, counted but not listed: a stuck store's loss keeps at most
    /// the buffer's capacity of actions, so that a store that stays stuck costs no more memory.
    /// The gap recorded for them counts them by case.
    public var unlisted: Int

    /// Creates a failure report.
    public init(error: EventLogError, unrecorded: [DispatchedAction<Action>], unlisted: Int = 0) {
        self.error = error
        self.unrecorded = unrecorded
        self.unlisted = unlisted
    }

    /// `could not record 12 actions (cart.remove at Shop/CartScreen.swift:39, …): <error>`.
    public var description: String {
        let first = unrecorded.prefix(3).map { "\(ActionCaseName.of($0.action)) at \($0.source.file):\($0.source.line)" }
        let more = unrecorded.count > 3 || unlisted > 0 ? ", …" : ""
        let total = unrecorded.count + unlisted
        let what = total == 0 ? "" : " \(total) action\(total == 1 ? "" : "s") (\(first.joined(separator: ", "))\(more))"
        return "could not record\(what): \(error)"
    }
}
