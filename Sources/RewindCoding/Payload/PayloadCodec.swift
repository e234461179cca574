public import Foundation

/// Encodes actions and states for the log, and decodes them back.
///
/// Each session records the name of its codec, so every reader picks the right decoder. A codec
/// that produces text (``isText``) stores payloads as SQLite `TEXT`, readable with `sqlite3`
/// and `json_extract`; others store `BLOB`s.
public protocol PayloadCodec: Sendable {
    /// The name recorded in each session (`json`, …). Never change a released codec's name.
    var name: String { get }
    /// Whether payloads are UTF-8 text.
    var isText: Bool { get }
    /// Encodes a value.
    func encode<Value: Encodable>(_ value: Value) throws -> Data
    /// Decodes a value.
    func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value

    /// Decodes a value from borrowed bytes (replay's fast path). By default, copies them into
    /// `Data`; a codec that can read in place does so.
    func decode<Value: Decodable>(_ type: Value.Type, from bytes: UnsafeRawBufferPointer) throws -> Value
}

extension PayloadCodec {
    /// Copies the bytes into `Data` and decodes that.
    public func decode<Value: Decodable>(_ type: Value.Type, from bytes: UnsafeRawBufferPointer) throws -> Value {
        try decode(type, from: Data(bytes))
    }

}
