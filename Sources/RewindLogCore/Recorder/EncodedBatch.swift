import Foundation
import Rewind

/// One part of the recorder's buffer encoded for one transaction, on the writer thread: its
/// events and snapshots as rows (``LogWrite``), what could not be encoded, and the session's
/// snapshot spacing moved along by what was written. Made inside the log's transaction, with
/// the log's own codec instance (a codec with symbols interns them there), and made anew if the
/// transaction runs again.
struct EncodedBatch<Action: Codable & Sendable> {
    /// The rows, in order.
    var writes: [LogWrite] = []
    /// Events whose payload could not be encoded (recorded without it) and snapshots that could
    /// not be encoded (left out).
    var failures: [RecorderFailure<Action>] = []
    /// The events among the rows.
    var events = 0
    /// The spacing after these rows.
    var spacing: SnapshotSpacing
    /// The writer's map of tickets to seqs with this batch's events placed in it, to be told
    /// their seqs once committed (``CausationMap/committed(firstSeq:)``).
    var causes: CausationMap

    /// Encodes `items`, whose first event has ticket `firstTicket`; calls `progressed` after
    /// each snapshot (the dear items).
    init<State: Codable & Sendable>(
        encoding items: ArraySlice<RecordingBuffer<State, Action>.Item>, firstTicket: UInt64, codec: any PayloadCodec,
        configuration: RecorderConfiguration<State, Action>, path: String, spacing: SnapshotSpacing, causes: CausationMap,
        progressed: () -> Void = {}
    ) {
        self.spacing = spacing
        self.causes = causes
        let encoder = EventEncoder(codec: codec, redaction: configuration.redaction, path: path)
        var ticket = firstTicket
        writes.reserveCapacity(items.count)
        for item in items {
            switch item {
            case let .event(dispatched, time):
                var (event, failure) = encoder.encode(dispatched.action, source: dispatched.source, time: time.seconds)
                (event.cause, event.root) = self.causes.place(ticket: dispatched.ticket, cause: dispatched.cause, ordinal: events)
                events += 1
                ticket += 1
                if let failure { failures.append(RecorderFailure(error: failure, unrecorded: [dispatched])) }
                self.spacing.wroteEvent(payloadBytes: event.payload?.count ?? 0)
                writes.append(.event(event))
            case let .snapshot(snapshot):
                do {
                    let encoded = try snapshot.encoded(codec: codec.name) { state in try codec.encode(configuration.redaction.scrubbed(state)) }
                    self.spacing.wroteSnapshot(bytes: encoded.count, ticket: ticket)
                    writes.append(.snapshot(time: snapshot.time, state: encoded))
                } catch {
                    failures.append(RecorderFailure(error: .encodingFailed(path: path, seq: nil, actionCase: "state snapshot", reason: "\(error)"), unrecorded: []))
                }
                progressed()
            case .freshState:
                // Asked for again after a later failure that another batch resolved.
                break
            }
        }
    }
}
