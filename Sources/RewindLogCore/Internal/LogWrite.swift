public import Foundation
import Rewind

/// One row to write, already encoded: the form every writer (`EventLog.append(_:to:redaction:)`
/// and the recorder's writer thread) hands to the log it writes (``RecordingLog``).
@usableFromInline
package enum LogWrite: Sendable {
    @usableFromInline
    package struct Event: Sendable {
        @usableFromInline package var time: Double
        @usableFromInline package var actionCase: String
        @usableFromInline package var payload: Data?
        @usableFromInline package var source: SourceKey
        @usableFromInline package var info: String?
        @usableFromInline package var redaction: String?
        /// The event that caused this one, `nil` when none is known.
        @usableFromInline package var cause: EventLink?
        /// The first event of its chain (itself for a root), `nil` when not known.
        @usableFromInline package var root: EventLink?

        @inlinable
        package init(
            time: Double, actionCase: String, payload: Data?, source: SourceKey, info: String?, redaction: String?,
            cause: EventLink? = nil, root: EventLink? = nil
        ) {
            (self.time, self.actionCase, self.payload, self.source) = (time, actionCase, payload, source)
            (self.info, self.redaction, self.cause, self.root) = (info, redaction, cause, root)
        }
    }

    /// An event.
    case event(Event)
    /// A snapshot of the state after the last event written before it.
    case snapshot(time: Double, state: Data)
}
