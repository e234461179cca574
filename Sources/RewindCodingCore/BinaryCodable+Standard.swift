public import Foundation

// The leaves of the format, byte for byte as the codec's `Codable` encoder writes them (see
// `BinaryEncoding` in RewindLog): generated code and `Codable` must agree on every value.

extension Bool: BinaryCodable {
    @inlinable public init(binary reader: inout BinaryReader) throws {
        let byte = try reader.readByte()
        guard byte <= 1 else { throw reader.corrupt("not a Bool") }
        self = byte == 1
    }

    @inlinable public func encode(binary writer: inout BinaryWriter) throws { writer.writeByte(self ? 1 : 0) }
}

extension BinaryReader {
    /// A zigzag varint that must fit `T`.
    @inlinable
    mutating func readSigned<T: FixedWidthInteger & SignedInteger>(_ type: T.Type) throws -> T {
        guard let value = T(exactly: VarInt.unzigzag(try readVarInt())) else { throw mismatch(T.self) }
        return value
    }

    /// A varint that must fit `T`.
    @inlinable
    mutating func readUnsigned<T: FixedWidthInteger & UnsignedInteger>(_ type: T.Type) throws -> T {
        guard let value = T(exactly: try readVarInt()) else { throw mismatch(T.self) }
        return value
    }

    @usableFromInline
    func mismatch(_ type: Any.Type) -> DecodingError {
        .typeMismatch(type, .init(codingPath: [], debugDescription: "the number does not fit \(type)"))
    }

    /// `size` bytes, little-endian.
    @inlinable
    mutating func readFixed(_ size: Int) throws -> UInt64 {
        try readRaw(size).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }
}

extension BinaryWriter {
    @inlinable
    mutating func writeFixed(_ bits: UInt64, size: Int) {
        for index in 0..<size { writeByte(UInt8(truncatingIfNeeded: bits >> (8 * UInt64(index)))) }
    }
}

extension Int: BinaryCodable {
    @inlinable public init(binary reader: inout BinaryReader) throws { self = try reader.readSigned(Int.self) }
    @inlinable public func encode(binary writer: inout BinaryWriter) throws { writer.writeVarInt(VarInt.zigzag(Int64(self))) }
}

extension Int8: BinaryCodable {
    @inlinable public init(binary reader: inout BinaryReader) throws { self = try reader.readSigned(Int8.self) }
    @inlinable public func encode(binary writer: inout BinaryWriter) throws { writer.writeVarInt(VarInt.zigzag(Int64(self))) }
}

extension Int16: BinaryCodable {
    @inlinable public init(binary reader: inout BinaryReader) throws { self = try reader.readSigned(Int16.self) }
    @inlinable public func encode(binary writer: inout BinaryWriter) throws { writer.writeVarInt(VarInt.zigzag(Int64(self))) }
}

extension Int32: BinaryCodable {
    @inlinable public init(binary reader: inout BinaryReader) throws { self = try reader.readSigned(Int32.self) }
    @inlinable public func encode(binary writer: inout BinaryWriter) throws { writer.writeVarInt(VarInt.zigzag(Int64(self))) }
}

extension Int64: BinaryCodable {
    @inlinable public init(binary reader: inout BinaryReader) throws { self = try reader.readSigned(Int64.self) }
    @inlinable public func encode(binary writer: inout BinaryWriter) throws { writer.writeVarInt(VarInt.zigzag(self)) }
}

extension UInt: BinaryCodable {
    @inlinable public init(binary reader: inout BinaryReader) throws { self = try reader.readUnsigned(UInt.self) }
    @inlinable public func encode(binary writer: inout BinaryWriter) throws { writer.writeVarInt(UInt64(self)) }
}

extension UInt8: BinaryCodable {
    @inlinable public init(binary reader: inout BinaryReader) throws { self = try reader.readUnsigned(UInt8.self) }
    @inlinable public func encode(binary writer: inout BinaryWriter) throws { writer.writeVarInt(UInt64(self)) }
}

extension UInt16: BinaryCodable {
    @inlinable public init(binary reader: inout BinaryReader) throws { self = try reader.readUnsigned(UInt16.self) }
    @inlinable public func encode(binary writer: inout BinaryWriter) throws { writer.writeVarInt(UInt64(self)) }
}

extension UInt32: BinaryCodable {
    @inlinable public init(binary reader: inout BinaryReader) throws { self = try reader.readUnsigned(UInt32.self) }
    @inlinable public func encode(binary writer: inout BinaryWriter) throws { writer.writeVarInt(UInt64(self)) }
}

extension UInt64: BinaryCodable {
    @inlinable public init(binary reader: inout BinaryReader) throws { self = try reader.readUnsigned(UInt64.self) }
    @inlinable public func encode(binary writer: inout BinaryWriter) throws { writer.writeVarInt(self) }
}

extension Double: BinaryCodable {
    @inlinable public init(binary reader: inout BinaryReader) throws { self = Double(bitPattern: try reader.readFixed(8)) }
    @inlinable public func encode(binary writer: inout BinaryWriter) throws { writer.writeFixed(bitPattern, size: 8) }
}

extension Float: BinaryCodable {
    @inlinable public init(binary reader: inout BinaryReader) throws { self = Float(bitPattern: UInt32(try reader.readFixed(4))) }
    @inlinable public func encode(binary writer: inout BinaryWriter) throws { writer.writeFixed(UInt64(bitPattern), size: 4) }
}

extension String: BinaryCodable {
    @inlinable public init(binary reader: inout BinaryReader) throws {
        guard let string = ValidatedUTF8.string(try reader.readCounted()) else {
            throw reader.corrupt("a string that is not valid UTF-8")
        }
        self = string
    }

    @inlinable public func encode(binary writer: inout BinaryWriter) throws {
        var string = self
        string.withUTF8 { writer.writeCounted(UnsafeRawBufferPointer($0)) }
    }
}

extension UUID: BinaryCodable {
    @inlinable public init(binary reader: inout BinaryReader) throws {
        let raw = try reader.readRaw(16)
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &uuid) { $0.copyMemory(from: raw) }
        self.init(uuid: uuid)
    }

    @inlinable public func encode(binary writer: inout BinaryWriter) throws {
        withUnsafeBytes(of: uuid) { writer.writeRaw($0) }
    }
}

extension Date: BinaryCodable {
    @inlinable public init(binary reader: inout BinaryReader) throws {
        self.init(timeIntervalSinceReferenceDate: try Double(binary: &reader))
    }

    @inlinable public func encode(binary writer: inout BinaryWriter) throws {
        try timeIntervalSinceReferenceDate.encode(binary: &writer)
    }
}

extension Data: BinaryCodable {
    @inlinable public init(binary reader: inout BinaryReader) throws { self.init(try reader.readCounted()) }

    @inlinable public func encode(binary writer: inout BinaryWriter) throws {
        withUnsafeBytes { writer.writeCounted($0) }
    }
}

extension URL: BinaryCodable {
    @inlinable public init(binary reader: inout BinaryReader) throws {
        let text = try String(binary: &reader)
        guard let url = URL(string: text) else { throw reader.corrupt("'\(text)' is not a URL") }
        self = url
    }

    @inlinable public func encode(binary writer: inout BinaryWriter) throws { try absoluteString.encode(binary: &writer) }
}

/// An optional as a value (an element of a list, say): a presence byte, then the value. Optional
/// fields are left out instead, through `encodeIfPresent`.
extension Optional: BinaryCodable where Wrapped: BinaryCodable {
    @inlinable public init(binary reader: inout BinaryReader) throws {
        switch try reader.readByte() {
        case 0: self = nil
        case 1: self = try Wrapped(binary: &reader)
        case let byte: throw reader.corrupt("invalid presence byte \(byte)")
        }
    }

    @inlinable public func encode(binary writer: inout BinaryWriter) throws {
        guard let self else { return writer.writeByte(0) }
        writer.writeByte(1)
        try self.encode(binary: &writer)
    }
}

extension Array: BinaryCodable where Element: BinaryCodable {
    @inlinable public init(binary reader: inout BinaryReader) throws {
        self = try reader.readList { try Element(binary: &$0) }
    }

    @inlinable public func encode(binary writer: inout BinaryWriter) throws { try writer.writeList(self) }
}
