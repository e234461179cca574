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
/// Types marked `@BinaryCodable` (see ``BinaryCodable``) are read and written by
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
        try encoder(for: Value.self)(value)
    }

    /// An encoder for a run of values of `type`: whether the type has generated code is looked
    /// up once, and one encoding pass (with its copy of the symbol index) serves every value
    /// while the symbol table stays as it was, instead of one pass per value.
    public func encoder<Value: Encodable>(for type: Value.Type) -> PayloadEncoder<Value> {
        guard let generated = Value.self as? any BinaryCodable.Type else {
            return PayloadEncoder { [self] value in try encodeWithCodable(value) }
        }
        return encoder(generated, as: Value.self)
    }

    /// The encoder of a type with generated code (`Generated`, which is `Value` itself).
    private func encoder<Generated: BinaryCodable, Value>(_ type: Generated.Type, as: Value.Type) -> PayloadEncoder<Value> {
        // The count of changes is read before the pass copies the index: once the table changes
        // (a new key, or symbols forgotten after a rollback, whose ids another writer may take),
        // each value gets a pass of its own, as `encode(_:)` does. Nothing captured is mutable,
        // which would cost an exclusivity check per access.
        let changes = symbols.changes.load(ordering: .acquiring)
        let shared = BinaryEncoding(table: symbols)
        let scratch = EncodingScratch()
        return PayloadEncoder { [self] value in
            let encoding = symbols.changes.load(ordering: .acquiring) == changes ? shared : BinaryEncoding(table: symbols)
            return try scratch.encoding { bytes in try Self.encode(value, as: type, in: encoding, into: &bytes) }
        }
    }

    /// The bytes one encoder writes its values into, kept from one value to the next: each
    /// value's bytes were an array of their own, allocated, copied into the `Data` returned and
    /// freed, which with the copy was about a twentieth of the recorder's writer thread
    /// (`rewind-bench --workload record --codec binary`, profiled). An encoder runs on one
    /// thread at a time (``PayloadEncoder``), so its scratch needs no lock.
    private final class EncodingScratch {
        private var bytes: [UInt8] = []

        /// The `Data` of what `write` appends to an empty array that keeps its capacity.
        func encoding(_ write: (inout [UInt8]) throws -> Void) rethrows -> Data {
            // Moved out, so that the array is uniquely referenced while written.
            var bytes = self.bytes
            self.bytes = []
            defer {
                bytes.removeAll(keepingCapacity: true)
                self.bytes = bytes
            }
            try write(&bytes)
            return Data(bytes)
        }
    }

    /// Encodes through `Codable` even when the type has generated code (the two must agree).
    package func encodeWithCodable<Value: Encodable>(_ value: Value) throws -> Data {
        let encoding = BinaryEncoding(table: symbols)
        return Data(encoding.serialize(try encoding.encode(value, codingPath: [])))
    }

    /// Encodes with the generated code of `type`, which is `Value` itself.
    private static func encode<Value, Generated: BinaryCodable>(
        _ value: Value, as type: Generated.Type, in encoding: BinaryEncoding, into bytes: inout [UInt8]
    ) throws {
        var writer = BinaryWriter(context: encoding, bytes: bytes)
        bytes = []
        defer { bytes = writer.bytes }
        try withUnsafePointer(to: value) { pointer in
            try pointer.withMemoryRebound(to: Generated.self, capacity: 1) { try $0.pointee.encode(binary: &writer) }
        }
    }

    /// Decodes a value.
    public func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        try data.withUnsafeBytes { bytes in try decode(type, from: bytes) }
    }

    /// Decodes a value in place, without copying the bytes.
    public func decode<Value: Decodable>(_ type: Value.Type, from bytes: UnsafeRawBufferPointer) throws -> Value {
        try decoder(for: type)(bytes)
    }

    /// A decoder for a run of payloads of `type`: whether the type has generated code is
    /// looked up once, and the symbol table's names are taken once instead of per payload
    /// (together, an eighth of replay's decoding before); a payload decoded after the table
    /// changed (a symbol another writer added meanwhile) takes the table's new names.
    public func decoder<Value: Decodable>(for type: Value.Type) -> PayloadDecoder<Value> {
        guard let generated = Value.self as? any BinaryCodable.Type else {
            return PayloadDecoder { [self] bytes in try decodeWithCodable(type, from: bytes, in: 0..<bytes.count, names: symbols.names) }
        }
        return decoder(generated, as: Value.self)
    }

    /// The decoder of a type with generated code (`Generated`, which is `Value` itself).
    private func decoder<Generated: BinaryCodable, Value>(_ type: Generated.Type, as: Value.Type) -> PayloadDecoder<Value> {
        let (shared, changes) = symbols.namesAndChanges
        return PayloadDecoder(generated: { [self] bytes in
            let names = symbols.changes.load(ordering: .acquiring) == changes ? shared : symbols.namesForDecoding
            // The reader borrows the names unretained: they must outlive it.
            defer { withExtendedLifetime(names) {} }
            var reader = BinaryReader(bytes: bytes, names: names, context: self)
            let value = try Generated(binary: &reader)
            guard reader.isAtEnd else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "bytes left over after the value"))
            }
            return value
        })
    }

    /// Decodes through `Codable` even when the type has generated code (the two must agree).
    package func decodeWithCodable<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        try data.withUnsafeBytes { try decodeWithCodable(type, from: $0, in: 0..<$0.count, names: symbols.names) }
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
    @usableFromInline
    package func decodeWithCodable<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer, in range: Range<Int>, names: [String]) throws -> T {
        try BinaryDecoding(bytes: bytes, names: names).decode(type, from: range, path: nil)
    }
}
