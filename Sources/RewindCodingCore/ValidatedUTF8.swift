/// Strings read from payloads: every one is checked to be valid UTF-8, so damaged bytes make a
/// decoding error, never a string that differs from what was written.
///
/// `String(validating:as:)` is generic over the encoding and, in a profile of replay, was an
/// eighth of decoding. Most keys and values are ASCII: those are checked eight bytes at a time
/// and made with `String(decoding:as:)` (which has nothing to repair in ASCII); anything else
/// takes the standard validation.
@usableFromInline
package enum ValidatedUTF8 {
    @inlinable
    package static func string(_ bytes: UnsafeRawBufferPointer) -> String? {
        isASCII(bytes) ? String(decoding: bytes, as: UTF8.self) : String(validating: bytes, as: UTF8.self)
    }

    @inlinable
    static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        let count = bytes.count
        var high: UInt64 = 0
        while index + 8 <= count {
            high |= bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < count {
            high |= UInt64(bytes[index])
            index += 1
        }
        return high & 0x8080_8080_8080_8080 == 0
    }
}
