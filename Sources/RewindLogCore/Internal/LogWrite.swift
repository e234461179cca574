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
        // The optionals are spelled `Optional<…>`: a `var` spelled `T?` starts as `nil` before
        // the initialiser runs, and with such fields the optimiser made each event twice and
        // copied one into the other (each string and the payload retained and released once
        // more, per event on the recorder's writer thread).
        @usableFromInline package var payload: Optional<Data>
        @usableFromInline package var source: SourceKey
        @usableFromInline package var info: Optional<String>
        @usableFromInline package var redaction: Optional<String>
        /// The event that caused this one, `nil` when none is known.
        @usableFromInline package var cause: Optional<EventLink>
        /// The first event of its chain (itself for a root), `nil` when not known.
        @usableFromInline package var root: Optional<EventLink>

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
    /// A snapshot of the state after the last event written before it, or, with `seq`, after
    /// that event (one the recorder's writer held back while its encoding finished, written
    /// after the events that followed it; see `RecorderWriter.HeldSnapshot`). `deflation` is
    /// its deflated form when that was made ahead (for a log that deflates snapshots).
    case snapshot(time: Double, state: Data, seq: Int64? = nil, deflation: SnapshotCompression.Deflation = .notMade)
}

extension LogWrite {
    /// Encodes a batch's rows with the log's codec, handing them over a part at a time
    /// (``RecordingLog/write(session:events:_:)``): a log that sends rows over a network sends
    /// one part while the writer encodes the next. An empty part says the writer is about to
    /// take a while (a snapshot comes next): a log should not hold a statement open across it.
    package typealias Encoding = (_ codec: any PayloadCodec, _ emit: (_ part: [LogWrite]) -> Void) throws -> Void

    /// Every row `encode` makes, in order: for a log that writes a batch at once.
    package static func all(_ encode: Encoding, codec: any PayloadCodec) throws -> [LogWrite] {
        var rows: [LogWrite] = []
        // A batch in one part (a file's) is that part's array itself, not a copy of it.
        try encode(codec) { part in if rows.isEmpty { rows = part } else { rows += part } }
        return rows
    }
}
