public import Foundation

/// JSON: readable with `sqlite3` and `json_extract`. The default.
///
/// Payloads are the bytes Foundation's `JSONEncoder` writes with `.sortedKeys` and its default
/// strategies, made by Rewind's own encoder in less time (the recorder commits JSON about 1.7 times
/// as fast as with Foundation's encoder); they are decoded by
/// Foundation's `JSONDecoder`. Dates are encoded as Foundation encodes them by default (seconds
/// since 2001 as a number), so they decode to exactly the same `Date` and replay stays
/// bit-for-bit faithful.
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
        try SortedJSONEncoder().encode(value)
    }

    /// One encoder for a run of values: the tree it builds each value in is kept from one to
    /// the next.
    public func encoder<Value: Encodable>(for type: Value.Type) -> PayloadEncoder<Value> {
        let encoder = SortedJSONEncoder()
        return PayloadEncoder { value in try encoder.encode(value) }
    }

    /// Decodes a value from JSON.
    public func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        try decoder.decode(type, from: data)
    }
}
