public import Foundation

/// JSON: readable with `sqlite3` and `json_extract`. The default.
///
/// Payloads are the bytes Foundation's `JSONEncoder` writes with `.sortedKeys` and its default
/// strategies, made by Rewind's own encoder in less time (the recorder commits JSON about 1.7 times
/// as fast as with Foundation's encoder); they decode to what Foundation's `JSONDecoder` gives.
/// Types marked `@BinaryCodable` are written and read by generated code (``JSONWriter``,
/// ``JSONReader``), faster still, with the reference taking over the payload wherever that code
/// is unsure, so bytes, values and errors are Foundation's; other types go through `Codable`. Dates are
/// encoded as Foundation encodes them by default (seconds since 2001 as a number), so they
/// decode to exactly the same `Date` and replay stays bit-for-bit faithful.
public struct JSONPayloadCodec: PayloadCodec {
    /// `json`.
    public let name = "json"
    /// JSON is text.
    public let isText = true

    // Foundation's decoder is documented thread-safe for concurrent use once configured; one
    // per codec saves building it for every payload.
    private let decoder = JSONDecoder()

    /// The JSON codec.
    public init() {}

    /// Encodes a value as JSON, with keys sorted: Foundation otherwise writes them in hash
    /// order, which differs from run to run, and the same state must always encode to the same
    /// bytes (snapshots are compared, logs are diffed).
    public func encode<Value: Encodable>(_ value: Value) throws -> Data {
        try encoder(for: Value.self)(value)
    }

    /// An encoder for a run of values of `type`: whether the type has generated code is looked
    /// up once, and the tree `Codable` values are built in is kept from one to the next.
    public func encoder<Value: Encodable>(for type: Value.Type) -> PayloadEncoder<Value> {
        let encoder = SortedJSONEncoder()
        guard let generated = Value.self as? any BinaryCodable.Type else {
            return PayloadEncoder { value in try encoder.encode(value) }
        }
        return Self.encoder(generated, as: Value.self, codable: encoder)
    }

    /// The encoder of a type with generated code (`Generated`, which is `Value` itself): its
    /// writer, or where the writer is unsure, `SortedJSONEncoder` over the whole value.
    private static func encoder<Generated: BinaryCodable, Value: Encodable>(
        _ type: Generated.Type, as: Value.Type, codable: SortedJSONEncoder
    ) -> PayloadEncoder<Value> {
        PayloadEncoder { value in
            var writer = JSONWriter(codable: codable)
            do {
                try withUnsafePointer(to: value) { pointer in
                    try pointer.withMemoryRebound(to: Generated.self, capacity: 1) { try $0.pointee.encode(json: &writer) }
                }
            } catch {
                // A refusal (a number that is not finite) is the reference's to make, with the
                // value's coding path; so is any error a field's own `encode(to:)` throws.
                return try codable.encode(value)
            }
            return Data(writer.bytes)
        }
    }

    /// Decodes a value from JSON.
    public func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        guard let generated = Value.self as? any BinaryCodable.Type else { return try decoder.decode(type, from: data) }
        return try data.withUnsafeBytes { try decoder(generated, as: Value.self)($0) }
    }

    /// Decodes a value in place.
    public func decode<Value: Decodable>(_ type: Value.Type, from bytes: UnsafeRawBufferPointer) throws -> Value {
        try decoder(for: type)(bytes)
    }

    /// A decoder for a run of payloads of `type`, whose generated code, if any, is looked up once.
    public func decoder<Value: Decodable>(for type: Value.Type) -> PayloadDecoder<Value> {
        guard let generated = Value.self as? any BinaryCodable.Type else {
            return PayloadDecoder { [decoder] bytes in try decoder.decode(type, from: Data(bytes)) }
        }
        return decoder(generated, as: Value.self)
    }

    /// The decoder of a type with generated code (`Generated`, which is `Value` itself): its
    /// reader, or where the reader is unsure, Foundation's decoder.
    private func decoder<Generated: BinaryCodable, Value: Decodable>(_ type: Generated.Type, as: Value.Type) -> PayloadDecoder<Value> {
        PayloadDecoder(generated: { [decoder] bytes in
            try JSONReader.read(Generated.self, from: bytes) ?? decoder.decode(Generated.self, from: Data(bytes))
        })
    }
}
