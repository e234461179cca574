public import Foundation
public import Rewind

/// One part of the recorder's buffer encoded for one transaction, on the writer thread: its
/// events and snapshots as rows (``LogWrite``), what could not be encoded, and the session's
/// snapshot spacing moved along by what was written. Made inside the log's transaction, with
/// the log's own codec instance (a codec with symbols interns them there), and made anew if the
/// transaction runs again.
///
/// The writer's loop is generic code, unspecialised for the app's types; encoding, the part
/// of it that touches each action, runs through an ``Encoding`` closure that ``Recorder`` makes
/// in the app's module, where this `@inlinable` initializer specialises for the app's action.
@usableFromInline
struct EncodedBatch<Action: Codable & Sendable> {
    /// Encodes items of a recorder's buffer for one transaction (the initializer, as made
    /// where the types are known).
    @usableFromInline
    typealias Encoding<State: Codable & Sendable> = @Sendable (
        _ items: ArraySlice<RecordingBuffer<State, Action>.Item>, _ firstTicket: UInt64, _ codec: any PayloadCodec,
        _ configuration: RecorderConfiguration<State, Action>, _ path: String, _ spacing: SnapshotSpacing, _ causes: CausationMap,
        _ progressed: () -> Void
    ) -> EncodedBatch<Action>

    /// The rows, in order.
    @usableFromInline var writes: [LogWrite] = []
    /// Events whose payload could not be encoded (recorded without it) and snapshots that could
    /// not be encoded (left out).
    @usableFromInline var failures: [RecorderFailure<Action>] = []
    /// The events among the rows.
    @usableFromInline var events = 0
    /// The spacing after these rows.
    @usableFromInline var spacing: SnapshotSpacing
    /// The writer's map of tickets to seqs with this batch's events placed in it, to be told
    /// their seqs once committed (``CausationMap/committed(firstSeq:)``).
    @usableFromInline var causes: CausationMap

    /// Encodes `items`, whose first event has ticket `firstTicket`; calls `progressed` after
    /// each snapshot (the dear items).
    @inlinable
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
                encodeSnapshot(snapshot, ticket: ticket, codec: codec, configuration: configuration, path: path)
                progressed()
            case .freshState:
                // Asked for again after a later failure that another batch resolved.
                break
            }
        }
    }

    /// Adds the row of `snapshot`, or its failure (not inlined: once per snapshot interval).
    @usableFromInline
    mutating func encodeSnapshot<State: Codable & Sendable>(
        _ snapshot: PendingSnapshot<State>, ticket: UInt64, codec: any PayloadCodec, configuration: RecorderConfiguration<State, Action>,
        path: String
    ) {
        do {
            let encoded = try snapshot.encoded(codec: codec.name) { state in try codec.encode(configuration.redaction.scrubbed(state)) }
            spacing.wroteSnapshot(bytes: encoded.count, ticket: ticket)
            writes.append(.snapshot(time: snapshot.time, state: encoded))
        } catch {
            failures.append(RecorderFailure(error: .encodingFailed(path: path, seq: nil, actionCase: "state snapshot", reason: "\(error)"), unrecorded: []))
        }
    }
}
