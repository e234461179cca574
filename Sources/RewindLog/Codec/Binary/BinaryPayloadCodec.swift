import Foundation

/// A compact binary encoding for any `Codable` value, several times smaller and faster than
/// JSON; the one to use for high-rate recording and fast replay.
///
/// No package in the toolchain's reach offers a fast, compact encoding for arbitrary `Codable`
/// values, so this one is written here. Coding keys are interned: each key string is stored once
/// per log, in its `symbols` table, and payloads carry small numbers. Integers are varints
/// (zigzag for signed ones), `UUID`s take 16 bytes, `Date`s and `Double`s 8, and every entry of a
/// container is length-prefixed, so fields a type no longer has are skipped when decoding.
///
/// Select it with `configuration.codec = BinaryPayloadCodec()`; each log keeps its own symbol
/// table, so the log's own instance of the codec does the work.
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
        let encoding = BinaryEncoding(table: symbols)
        let root = try encoding.encode(value, codingPath: [])
        return Data(encoding.serialize(root))
    }

    /// Decodes a value.
    public func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        try data.withUnsafeBytes { bytes in try decode(type, from: bytes) }
    }

    /// Decodes a value in place, without copying the bytes.
    public func decode<Value: Decodable>(_ type: Value.Type, from bytes: UnsafeRawBufferPointer) throws -> Value {
        let decoding = BinaryDecoding(bytes: bytes, names: symbols.names)
        return try decoding.decode(type, from: 0..<bytes.count, path: nil)
    }

    /// Symbols this codec learned that the log file may not hold yet.
    public func unpersistedSymbols() -> [CodecSymbol] { symbols.unpersisted() }

    /// Marks symbols up to `id` as stored in the log file.
    public func markPersisted(upTo id: Int64) { symbols.markPersisted(upTo: id) }

    /// Adds symbols read from the log file.
    public func learn(_ symbols: [CodecSymbol]) { self.symbols.learn(symbols) }

    /// Forgets symbols assigned after the last stored one.
    public func forgetUnpersistedSymbols() { symbols.forgetUnpersisted() }
}
