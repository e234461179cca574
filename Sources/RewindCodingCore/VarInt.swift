/// Variable-length integers (LEB128) and zigzag for signed values: small numbers take one byte.
/// The binary format's one number encoding, shared by the generated coders and the `Codable`
/// ones.
@usableFromInline
package enum VarInt {
    @inlinable
    package static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    @inlinable
    package static func size(of value: UInt64) -> Int {
        var value = value, size = 1
        while value >= 0x80 { value >>= 7; size += 1 }
        return size
    }

    @inlinable
    package static func zigzag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }

    @inlinable
    package static func unzigzag(_ value: UInt64) -> Int64 {
        Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
    }
}
