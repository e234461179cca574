import CZlib
package import Foundation

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

    /// `state`'s stored form, or `nil` when deflating does not save an eighth of it.
    package static func compressed(_ state: Data) -> Data? {
        guard state.count >= threshold else { return nil }
        var capacity = compressBound(uLong(state.count))
        var stored = Data(count: 8 + Int(capacity))
        let code = stored.withUnsafeMutableBytes { output in
            state.withUnsafeBytes { input in
                compress2(
                    output.baseAddress!.advanced(by: 8).assumingMemoryBound(to: Bytef.self), &capacity,
                    input.baseAddress!.assumingMemoryBound(to: Bytef.self), uLong(input.count), level
                )
            }
        }
        guard code == Z_OK, 8 + Int(capacity) <= state.count - state.count / 8 else { return nil }
        stored.count = 8 + Int(capacity)
        withUnsafeBytes(of: UInt64(state.count).littleEndian) { length in
            stored.replaceSubrange(0..<8, with: length)
        }
        return stored
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
