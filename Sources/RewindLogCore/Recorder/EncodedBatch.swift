public import Foundation
public import Rewind

/// One part of the recorder's buffer encoded for one transaction, on the writer thread: its
/// events and snapshots as rows (``LogWrite``), what could not be encoded, and the session's
/// snapshot spacing moved along by what was written. Made inside the log's transaction, with
/// the log's own codec instance (a codec with symbols interns them there), and made anew if the
/// transaction runs again. It is encoded a part of the items at a time (``encode(_:codec:configuration:path:progressed:)``),
/// each part's rows handed to the log as they are made (``LogWrite/Encoding``).
///
/// The writer's loop is generic code, unspecialised for the app's types; encoding, the part
/// of it that touches each action, runs through an ``Encoding`` closure that ``Recorder`` makes
/// in the app's module, where this `@inlinable` method specialises for the app's action.
@usableFromInline
struct EncodedBatch<Action: Codable & Sendable> {
    /// Encodes items of a recorder's buffer into a batch, after the items encoded into it
    /// before, and returns how many it encoded (the method, as made where the types are known).
    @usableFromInline
    typealias Encoding<State: Codable & Sendable> = @Sendable (
        _ batch: inout EncodedBatch<Action>, _ items: ArraySlice<RecordingBuffer<State, Action>.Item>, _ codec: any PayloadCodec,
        _ configuration: RecorderConfiguration<State, Action>, _ path: String, _ endingAtSnapshot: Bool, _ progressed: () -> Void
    ) -> Int

    /// The rows of the last part encoded, in order (the log takes them, part by part).
    @usableFromInline var writes: [LogWrite] = []
    /// Events whose payload could not be encoded (recorded without it) and snapshots that could
    /// not be encoded (left out).
    @usableFromInline var failures: [RecorderFailure<Action>] = []
    /// The events encoded so far.
    @usableFromInline var events = 0
    /// The ticket of the next event.
    @usableFromInline var ticket: UInt64
    /// The spacing after these rows.
    @usableFromInline var spacing: SnapshotSpacing
    /// The writer's map of tickets to seqs with this batch's events placed in it, to be told
    /// their seqs once committed (``CausationMap/committed(firstSeq:)``).
    @usableFromInline var causes: CausationMap
    /// The session's event encoder, made with the first part: what the codec works out per
    /// type, it works out once a batch.
    @usableFromInline var encoder: EventEncoder<Action>?

    /// A batch with nothing encoded yet, whose first event has ticket `firstTicket`.
    @usableFromInline
    init(firstTicket: UInt64, spacing: SnapshotSpacing, causes: CausationMap) {
        ticket = firstTicket
        self.spacing = spacing
        self.causes = causes
    }

    /// Encodes `items` into ``writes`` (replacing the part before), after the items encoded
    /// before; calls `progressed` after each snapshot (the dear items).
    ///
    /// - Parameter endingAtSnapshot: Whether to stop before a snapshot that is not the first
    ///   item, for a log that takes a batch in parts, each snapshot beginning one
    ///   (``RecordingLog/sendsRowsInParts``): the writer's loop, unspecialised, would otherwise
    ///   look at each item's case itself.
    /// - Returns: How many of `items` were encoded: all of them, or those before the snapshot.
    @inlinable
    mutating func encode<State: Codable & Sendable>(
        _ items: ArraySlice<RecordingBuffer<State, Action>.Item>, codec: any PayloadCodec,
        configuration: RecorderConfiguration<State, Action>, path: String, endingAtSnapshot: Bool, progressed: () -> Void
    ) -> Int {
        let encoder = self.encoder ?? EventEncoder(codec: codec, redaction: configuration.redaction, path: path)
        self.encoder = encoder
        writes.removeAll(keepingCapacity: true)
        writes.reserveCapacity(items.count)
        // Read in place, not copied out of the slice: iterating copied each item (its action's
        // retains and releases) before the encoder copied what it needed.
        return items.withUnsafeBufferPointer { items in
            for offset in items.indices {
                switch items[offset] {
                case let .event(dispatched, time):
                    var (event, failure) = encoder.encode(dispatched.action, source: dispatched.source, time: time.seconds)
                    (event.cause, event.root) = causes.place(ticket: dispatched.ticket, cause: dispatched.cause, ordinal: events)
                    events += 1
                    ticket += 1
                    if let failure { failures.append(RecorderFailure(error: failure, unrecorded: [dispatched])) }
                    spacing.wroteEvent(payloadBytes: event.payload?.count ?? 0)
                    writes.append(.event(consume event))
                case let .snapshot(snapshot):
                    if endingAtSnapshot, offset > 0 { return offset }
                    encodeSnapshot(snapshot, ticket: ticket, codec: codec, configuration: configuration, path: path)
                    progressed()
                case .freshState:
                    // Asked for again after a later failure that another batch resolved.
                    break
                }
            }
            return items.count
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
            spacing.wroteSnapshot(bytes: encoded.state.count, ticket: ticket)
            writes.append(.snapshot(time: snapshot.time, state: encoded.state, deflation: encoded.deflation))
        } catch {
            failures.append(RecorderFailure(error: .encodingFailed(path: path, seq: nil, actionCase: "state snapshot", reason: "\(error)"), unrecorded: []))
        }
    }
}
