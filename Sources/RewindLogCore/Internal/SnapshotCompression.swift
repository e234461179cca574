import CZlib
public import Foundation

/// Snapshots deflated with zlib: what `snapshots.compression = 'zlib'` (schema 10) says about
/// a row's `state`.
///
/// A growing state's snapshots are most of a log's bytes (the shop's JSON deflates about 5 to 1),
/// so the writer deflates each snapshot that gains from it, and `EventLog.snapshot(session:atOrBefore:)`
/// inflates it: every reader above that sees the codec's bytes, as before. An encrypted
/// session's snapshots are stored sealed and not deflated (sealed bytes do not deflate, and
/// deflating before sealing would put the compression inside the seal, where the copies that
/// keep sealed bytes — export, push — could not say it).
///
/// The stored form is the state's length (8 bytes, little-endian), then its zlib stream (RFC
/// 1950, which carries a checksum). The length lets a reader allocate once, and refuse a row
/// that claims more than deflate can produce from its bytes before allocating anything.
@usableFromInline
package enum SnapshotCompression {
    /// The `snapshots.compression` value.
    package static let name = "zlib"
    /// States shorter than this are stored as they are: too short to gain.
    package static let threshold = 512
    /// zlib's level: 1, its fastest. On the demo shop's 801 snapshots (121 MB of JSON), level 1
    /// stores 5.8 to 1 at 337 MB/s of writer CPU, level 6 stores 7.3 to 1 at 132 MB/s: a fifth
    /// fewer snapshot bytes (a percent or two of a budgeted log) is not worth 2.6 times the
    /// battery. Inflating runs at about 650 MB/s either way.
    package static let level: Int32 = 1
    /// deflate expands at most about 1032 to 1; a length beyond that is damage.
    private static let largestRatio = 1_032

    /// What is known of a state's stored form before it reaches the log: a snapshot the
    /// recorder's writer holds back is deflated where it is encoded, off the writer's thread
    /// (`PendingSnapshot`), when its log deflates snapshots (`RecordingLog.deflatesSnapshots`).
    @usableFromInline
    package enum Deflation: Sendable {
        /// Not tried: the log deflates the state as it writes it.
        case notMade
        /// ``compressed(_:)``'s result.
        case deflated(Data)
        /// ``compressed(_:)`` was tried and did not save an eighth: the state is stored as it is.
        case notWorthIt

        /// ``compressed(_:)`` of `state`, as a deflation.
        package init(of state: Data) {
            self = SnapshotCompression.compressed(state).map { .deflated($0) } ?? .notWorthIt
        }

        /// The stored form of `state`, this deflation of it: deflated when it is worth it,
        /// making the deflation now when it was not made.
        package func stored(_ state: Data) -> Data? {
            switch self {
            case .notMade: SnapshotCompression.compressed(state)
            case let .deflated(stored): stored
            case .notWorthIt: nil
            }
        }
    }

    /// `state`'s stored form, or `nil` when deflating does not save an eighth of it.
    ///
    /// Deflated a chunk at a time into a buffer that grows with what deflate writes, and given
    /// up once it passes seven eighths of the state. Not `compress2` into a buffer of
    /// `compressBound`: that buffer, zeroed, was a little more than the state itself, and beside
    /// the state's encoding it was the peak of the recorder's memory when a large snapshot was
    /// written (`rewind-bench --workload recorder-memory`).
    package static func compressed(_ state: Data) -> Data? {
        guard state.count >= threshold else { return nil }
        let limit = state.count - state.count / 8
        var stream = z_stream()
        guard deflateInit_(&stream, level, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        // The shop's JSON deflates about 5 to 1: a quarter is room enough for most states.
        var stored = Data(capacity: min(limit, max(threshold, state.count / 4)))
        withUnsafeBytes(of: UInt64(state.count).littleEndian) { stored.append(contentsOf: $0) }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var code = Z_OK
        state.withUnsafeBytes { input in
            var offset = 0
            repeat {
                // zlib counts its input in 32 bits: a larger state goes in pieces.
                if stream.avail_in == 0, offset < input.count {
                    let piece = min(input.count - offset, Int(uInt.max))
                    stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress!.advanced(by: offset).assumingMemoryBound(to: Bytef.self))
                    stream.avail_in = uInt(piece)
                    offset += piece
                }
                let flush = offset == input.count ? Z_FINISH : Z_NO_FLUSH
                code = chunk.withUnsafeMutableBytes { output in
                    stream.next_out = output.baseAddress!.assumingMemoryBound(to: Bytef.self)
                    stream.avail_out = uInt(output.count)
                    return deflate(&stream, flush)
                }
                let produced = chunk.count - Int(stream.avail_out)
                guard stored.count + produced <= limit else {
                    code = Z_BUF_ERROR
                    return
                }
                stored.append(contentsOf: chunk[0..<produced])
            } while code == Z_OK
        }
        return code == Z_STREAM_END ? stored : nil
    }

    /// The state whose stored form is `stored`.
    ///
    /// - Throws: ``RowDamage`` naming what is wrong, when the bytes are not a whole stream of
    ///   the length they claim.
    package static func decompressed(_ stored: Data) throws -> Data {
        guard stored.count > 8 else { throw RowDamage("snapshots.state is too short for a zlib snapshot (\(stored.count) bytes)") }
        let declared = stored.prefix(8).withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
        let largest = UInt64(stored.count - 8) * UInt64(largestRatio) + 64
        guard declared <= largest, declared <= UInt64(Int32.max) else {
            throw RowDamage("snapshots.state claims \(declared) bytes, more than its \(stored.count - 8) zlib bytes can hold")
        }
        var length = uLong(declared)
        var state = Data(count: Int(declared))
        let code = state.withUnsafeMutableBytes { output in
            stored.withUnsafeBytes { input in
                uncompress(
                    output.baseAddress?.assumingMemoryBound(to: Bytef.self), &length,
                    input.baseAddress!.advanced(by: 8).assumingMemoryBound(to: Bytef.self), uLong(input.count - 8)
                )
            }
        }
        guard code == Z_OK, length == uLong(declared) else {
            let reason = code == Z_OK ? "it inflates to \(length) bytes, not the \(declared) it claims" : "zlib error \(code)"
            throw RowDamage("snapshots.state is not a whole zlib snapshot: \(reason)")
        }
        return state
    }
}
