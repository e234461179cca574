package import Foundation
import Rewind

/// One row to write, already encoded: the form every writer (`EventLog.append(_:to:redaction:)`
/// and the recorder's writer thread) hands to the log it writes (``RecordingLog``).
package enum LogWrite: Sendable {
    package struct Event: Sendable {
        package var time: Double
        package var actionCase: String
        package var payload: Data?
        package var source: SourceKey
        package var info: String?
        package var redaction: String?
        /// The event that caused this one, `nil` when none is known.
        package var cause: EventLink? = nil
        /// The first event of its chain (itself for a root), `nil` when not known.
        package var root: EventLink? = nil
    }

    /// An event.
    case event(Event)
    /// A snapshot of the state after the last event written before it.
    case snapshot(time: Double, state: Data)
}
