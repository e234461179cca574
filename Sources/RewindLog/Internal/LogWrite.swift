import Foundation
import Rewind

/// One row to write, already encoded: the form every writer (``EventLog/append(_:to:redaction:)``
/// and the recorder's writer thread) hands to ``EventLog/insert(_:into:in:)``.
enum LogWrite {
    struct Event {
        var time: Double
        var actionCase: String
        var payload: Data?
        var source: SourceKey
        var info: String?
        var redaction: String?
    }

    /// An event.
    case event(Event)
    /// A snapshot of the state after the last event written before it.
    case snapshot(time: Double, state: Data)
}
