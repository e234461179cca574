import Foundation

/// Whether a fold (or a walk of a log's events) goes on after an action: a fold ends early by returning ``stop``, never by
/// throwing a stand-in error.
public enum FoldStep: Sendable {
    /// Hand over the next action.
    case `continue`
    /// End the fold here.
    case stop
}
