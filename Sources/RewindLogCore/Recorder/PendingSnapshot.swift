import Dispatch
import Foundation
import RewindCodingCore
import Synchronization

/// A state handed over for a periodic snapshot, and its encoding, which may be made ahead of
/// its turn on a thread of its own.
///
/// A snapshot is written in its place among the events — the state after the event before it
/// — inside the writer's transaction. Encoding a grown state is the dearest thing the writer
/// does (the shop's 1.4 MB of JSON at 100,000 actions: about 20 ms), and while the writer
/// encodes it frees no room in the buffer, so a burst's dispatches waited for it: the longest
/// dispatch of the defaults burst was that encoding. So the dispatch path, as it hands a
/// snapshot over, has it encoded on another thread (``RecordingBuffer/prepareSnapshot``: a
/// queue's `async`, once per snapshot) while the writer goes on committing the batches before
/// it; reaching it, the writer takes the bytes. When they are not done yet, nobody waits for
/// the writer, and no other snapshot's encoding is queued behind this one
/// (``SnapshotEncodingQueue``), it holds the snapshot back and goes on with the events after it, writing it
/// at the seq it follows once its bytes are (`RecorderWriter.HeldSnapshot`): a grown state's
/// encoding (the shop's 1.5 MB of JSON: 22–26 ms on the benchmark's VM) had set the defaults
/// burst's longest dispatch, the writer waiting for it while the buffer filled.
///
/// A snapshot the writer holds back is deflated there too, once encoded, when its log deflates
/// snapshots (``deflateOnceEncoded()``): deflating the shop's grown state took the writer 7–8 ms
/// of a held snapshot's 9–10 ms write, with a dispatch waiting for room behind it. Only a held
/// one: deflating every snapshot with no other's encoding queued behind it, the recorder's
/// dispatch ratio fell from 0.72–0.75 to 0.68–0.71 (alternated; why was not traced: the
/// deflating then runs beside the writer's commits on the two cores rather than between them),
/// and while snapshots queue behind each other the writer deflating one as the next is encoded
/// is a pipeline the encoder alone is not (a fixed interval of 1,000's longest dispatch rose
/// from 47–51 to 56–58 ms deflating there).
///
/// Only a text codec's encoding is made ahead: a codec with symbols interns them inside the
/// log's transaction (``EncodedBatch``), which a thread of its own cannot do.
@usableFromInline
final class PendingSnapshot<State: Sendable>: Sendable {
    @usableFromInline let state: State
    @usableFromInline let time: Double

    private enum Encoding {
        /// Nobody has started it: the writer encodes it when it reaches it.
        case none
        /// Being encoded ahead with the codec named, on `queue`; `done` is signalled when it is.
        case running(codec: String, done: DispatchSemaphore, queue: SnapshotEncodingQueue)
        case finished(codec: String, Result<Encoded, any Error>)
    }

    /// A state's encoding, and its deflated form when that was made too.
    struct Encoded {
        var state: Data
        var deflation: SnapshotCompression.Deflation
    }

    private let encoding = Mutex(Encoding.none)
    /// Whether the encoding made ahead is to be deflated too (``deflateOnceEncoded()``).
    private let deflates = Atomic<Bool>(false)

    @usableFromInline
    init(_ state: State, time: Double) {
        self.state = state
        self.time = time
    }

    /// Has the state encoded on `queue` with `encode`, the codec named `codec`'s encoding
    /// (with the recorder's redaction), unless it was started already; calls `ended` once it is
    /// done (the writer, which may have gone past the snapshot, wakes to write it).
    func prepare(
        on queue: SnapshotEncodingQueue, codec: String, ended: @escaping @Sendable () -> Void, _ encode: @escaping @Sendable (State) throws -> Data
    ) {
        let done = DispatchSemaphore(value: 0)
        let starts = encoding.withLock { encoding in
            guard case .none = encoding else { return false }
            encoding = .running(codec: codec, done: done, queue: queue)
            return true
        }
        guard starts else { return }
        queue.outstanding.add(1, ordering: .relaxed)
        queue.queue.async { [self] in
            let result = Result {
                let encoded = try encode(state)
                let deflation = deflates.load(ordering: .relaxed) ? SnapshotCompression.Deflation(of: encoded) : .notMade
                return Encoded(state: encoded, deflation: deflation)
            }
            // Counted off before the writer can see it done: a snapshot after it then finds
            // the queue as it is.
            queue.outstanding.subtract(1, ordering: .relaxed)
            encoding.withLock { $0 = .finished(codec: codec, result) }
            done.signal()
            ended()
        }
    }

    /// Has the encoding made ahead deflated as well (``SnapshotCompression``), once it is made:
    /// the writer asks it of a snapshot it holds back for a log that deflates snapshots, whose
    /// write is then an insert. Asked once the encoding is done, it changes nothing: the log
    /// deflates the state as it writes it.
    func deflateOnceEncoded() {
        deflates.store(true, ordering: .relaxed)
    }

    /// Whether its encoding is being made ahead and is not done yet.
    var isBeingEncoded: Bool {
        encoding.withLock { encoding in
            if case .running = encoding { true } else { false }
        }
    }

    /// Whether its encoding is being made ahead, is not done yet, and others' are queued behind
    /// it: snapshots are being handed over faster than they are encoded.
    var hasEncodingsQueuedBehind: Bool {
        encoding.withLock { encoding in
            if case let .running(_, _, queue) = encoding { queue.outstanding.load(ordering: .relaxed) > 1 } else { false }
        }
    }

    /// The state's encoding with the codec named `codec`: the one made ahead, waiting for it if
    /// it is still being made, or else `encode`'s, made now (and not deflated).
    func encoded(codec: String, _ encode: (State) throws -> Data) throws -> Encoded {
        let running: DispatchSemaphore? = encoding.withLock { encoding in
            if case let .running(name, done, _) = encoding, name == codec { return done }
            return nil
        }
        running?.wait()
        let made: Result<Encoded, any Error>? = encoding.withLock { encoding in
            if case let .finished(name, result) = encoding, name == codec { return result }
            return nil
        }
        return try made?.get() ?? Encoded(state: encode(state), deflation: .notMade)
    }
}

/// The encoder of a recorder's snapshots encoded ahead: one for the recorder's life, kept from
/// one snapshot to the next — the JSON codec's reserves about the last one's size for the next
/// instead of growing from empty, which at the peak of the recorder's memory was twice the
/// snapshot — and used by one snapshot at a time, on their queue.
///
/// Between snapshots it keeps its tree's nodes (for the shop's state, about half a megabyte):
/// released after each snapshot and grown again at the next, the recorder's peak measured half
/// a megabyte more (`rewind-bench --workload recorder-memory`: 7.9–8.2 MiB against 7.5–7.6).
final class SnapshotAheadEncoder<State: Encodable & Sendable>: Sendable {
    private let encoder: Mutex<PayloadEncoder<State>>

    init(_ encoder: consuming sending PayloadEncoder<State>) {
        self.encoder = Mutex(encoder)
    }

    func encode(_ state: State) throws -> Data {
        try encoder.withLock { try $0(state) }
    }

    /// What the dispatch path calls with each snapshot it hands over under `configuration`: has
    /// it encoded ahead, one at a time, with one encoder, then calls its second argument; `nil`
    /// for a codec with symbols.
    static func preparer<Action>(
        for configuration: RecorderConfiguration<State, Action>
    ) -> (@Sendable (PendingSnapshot<State>, _ ended: @escaping @Sendable () -> Void) -> Void)? {
        let codec = configuration.codec, redaction = configuration.redaction
        guard codec.isText else { return nil }
        let queue = SnapshotEncodingQueue()
        let encoder = SnapshotAheadEncoder(codec.encoder(for: State.self))
        return { snapshot, ended in
            snapshot.prepare(on: queue, codec: codec.name, ended: ended) { state in
                try encoder.encode(redaction.scrubbed(state))
            }
        }
    }
}

/// The queue a recorder's snapshots are encoded ahead on, one at a time, in the order they are
/// handed over, and how many it holds (queued or being encoded): the writer holds a snapshot back
/// only while no other's encoding waits behind it (`RecorderWriter.HeldSnapshot`).
final class SnapshotEncodingQueue: Sendable {
    let queue = DispatchQueue(label: "RewindLog.snapshots")
    /// Encodings queued or running, counted off as each ends.
    let outstanding = Atomic<Int>(0)
}
