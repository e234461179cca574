public import Foundation

/// JSON, through Foundation's coders: readable with `sqlite3` and `json_extract`. The default.
///
/// Dates are encoded as Foundation encodes them by default (seconds since 2001 as a number), so
/// they decode to exactly the same `Date` and replay stays bit-for-bit faithful.
public struct JSONPayloadCodec: PayloadCodec {
    /// `json`.
    public let name = "json"
    /// JSON is text.
    public let isText = true

    // Foundation's coders are documented thread-safe for concurrent use once configured;
    // one pair per codec saves building them for every payload.
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()
    private let decoder = JSONDecoder()

    /// The JSON codec.
    public init() {}

    /// Encodes a value as JSON, with keys sorted: Foundation otherwise writes them in hash
    /// order, which differs from run to run, and the same state must always encode to the same
    /// bytes (snapshots are compared, logs are diffed).
    public func encode<Value: Encodable>(_ value: Value) throws -> Data {
        try encoder.encode(value)
    }

    /// Decodes a value from JSON.
    public func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        try decoder.decode(type, from: data)
    }
}
