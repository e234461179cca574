public import Foundation

/// A compact binary encoding for any `Codable` value, several times smaller and faster than
/// JSON; the one to use for high-rate recording and fast replay.
///
/// No package in the toolchain's reach offers a fast, compact encoding for arbitrary `Codable`
/// values, so this one is written here. Field and case names are interned: each is stored once
/// per log, in its `symbols` table, and payloads carry small numbers (a dictionary's keys, being
/// data, are written inline); every entry is length-prefixed, so fields a type no longer has
/// are skipped. <doc:BinaryFormat> describes the bytes.
///
/// Select it with `configuration.codec = BinaryPayloadCodec()`; each log keeps its own symbol
/// table, so the log's own instance of the codec does the work.
///
/// Types marked `@BinaryCodable` (see ``RewindCoding/BinaryCodable``) are read and written by
/// generated code instead of through `Codable`'s containers: the same bytes, several times
/// faster. Mark the action types of an app that records at high rates or replays long logs.
public final class BinaryPayloadCodec: PayloadCodec {
    /// `binary`.
    public let name = "binary"
    /// Binary payloads are blobs.
    public let isText = false

    let symbols = SymbolTable()

    /// A codec with an empty symbol table.
    public init() {}

    /// Encodes a value.
    public func encode<Value: Encodable>(_ value: Value) throws -> Data {
        if let generated = Value.self as? any BinaryCodable.Type {
            return Data(try Self.encode(value, as: generated, in: BinaryEncoding(table: symbols)))
        }
        return try encodeWithCodable(value)
    }

    /// Encodes through `Codable` even when the type has generated code (the two must agree).
    package func encodeWithCodable<Value: Encodable>(_ value: Value) throws -> Data {
        let encoding = BinaryEncoding(table: symbols)
        return Data(encoding.serialize(try encoding.encode(value, codingPath: [])))
    }

    /// Encodes with the generated code of `type`, which is `Value` itself.
    private static func encode<Value, Generated: BinaryCodable>(_ value: Value, as type: Generated.Type, in encoding: BinaryEncoding) throws -> [UInt8] {
        var writer = BinaryWriter(context: encoding)
        try withUnsafePointer(to: value) { pointer in
            try pointer.withMemoryRebound(to: Generated.self, capacity: 1) { try $0.pointee.encode(binary: &writer) }
        }
        return writer.bytes
    }

    /// Decodes a value.
    public func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        try data.withUnsafeBytes { bytes in try decode(type, from: bytes) }
    }

    /// Decodes a value in place, without copying the bytes.
    public func decode<Value: Decodable>(_ type: Value.Type, from bytes: UnsafeRawBufferPointer) throws -> Value {
        if let generated = Value.self as? any BinaryCodable.Type {
            return try decode(generated, as: Value.self, from: bytes)
        }
        return try decodeWithCodable(type, from: bytes, in: 0..<bytes.count, names: symbols.names)
    }

    /// Decodes through `Codable` even when the type has generated code (the two must agree).
    package func decodeWithCodable<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        try data.withUnsafeBytes { try decodeWithCodable(type, from: $0, in: 0..<$0.count, names: symbols.names) }
    }

    /// Decodes with the generated code of `type`, which is `Value` itself.
    private func decode<Generated: BinaryCodable, Value>(_ type: Generated.Type, as: Value.Type, from bytes: UnsafeRawBufferPointer) throws -> Value {
        var reader = BinaryReader(bytes: bytes, names: symbols.names, context: self)
        var value = try Generated(binary: &reader)
        guard reader.isAtEnd else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "bytes left over after the value"))
        }
        return withUnsafePointer(to: &value) { $0.withMemoryRebound(to: Value.self, capacity: 1) { $0.pointee } }
    }

}

extension BinaryPayloadCodec: SymbolInterning {
    package func unpersistedSymbols() -> [CodecSymbol] { symbols.unpersisted() }
    package func markPersisted(upTo id: Int64) { symbols.markPersisted(upTo: id) }
    package func learn(_ symbols: [CodecSymbol]) throws { try self.symbols.learn(symbols) }
    package func forgetUnpersistedSymbols() { symbols.forgetUnpersisted() }
}

/// Generated code (`@BinaryCodable`) decodes its fields whose types are only `Codable` here.
extension BinaryPayloadCodec: BinaryDecodingContext {
    package func decodeWithCodable<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer, in range: Range<Int>, names: [String]) throws -> T {
        try BinaryDecoding(bytes: bytes, names: names).decode(type, from: range, path: nil)
    }
}
