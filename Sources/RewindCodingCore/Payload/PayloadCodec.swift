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

    /// An encoder for many values of one type: the recorder encodes each batch of actions with
    /// one, so what a codec works out per type (or per log) it works out once instead of per
    /// payload. By default, each call is ``encode(_:)``.
    func encoder<Value: Encodable>(for type: Value.Type) -> PayloadEncoder<Value>

    /// A decoder for many payloads of one type: replay decodes a whole session with one, so
    /// what a codec works out per type (or per log) it works out once instead of per payload.
    /// By default, each call decodes from borrowed bytes as above.
    func decoder<Value: Decodable>(for type: Value.Type) -> PayloadDecoder<Value>
}

extension PayloadCodec {
    /// Copies the bytes into `Data` and decodes that.
    public func decode<Value: Decodable>(_ type: Value.Type, from bytes: UnsafeRawBufferPointer) throws -> Value {
        try decode(type, from: Data(bytes))
    }

    /// Encodes each value with ``encode(_:)``.
    public func encoder<Value: Encodable>(for type: Value.Type) -> PayloadEncoder<Value> {
        PayloadEncoder { value in try encode(value) }
    }

    /// Decodes each payload with ``decode(_:from:)-(_,UnsafeRawBufferPointer)``.
    public func decoder<Value: Decodable>(for type: Value.Type) -> PayloadDecoder<Value> {
        PayloadDecoder { bytes in try decode(type, from: bytes) }
    }
}

/// Encodes values of one type; made by ``PayloadCodec/encoder(for:)``.
///
/// Use one for a run of values on one thread (it may cache what it has looked up), within the
/// transaction that stores what it encodes, and not after the codec's log is closed. A text
/// codec's (``PayloadCodec/isText``) may be used outside a transaction, as its ``PayloadCodec/encode(_:)``
/// may: the recorder encodes snapshots ahead of their transaction with one.
public struct PayloadEncoder<Value: Encodable> {
    private let encode: (Value) throws -> Data

    /// An encoder that runs `encode` on each value.
    public init(_ encode: @escaping (Value) throws -> Data) {
        self.encode = encode
    }

    /// Encodes one value.
    public func callAsFunction(_ value: Value) throws -> Data {
        try encode(value)
    }
}

/// Decodes payloads of one type from borrowed bytes; made by ``PayloadCodec/decoder(for:)``.
///
/// Use one for a run of payloads on one thread (it may cache what it has looked up), and not
/// after the codec's log is closed.
public struct PayloadDecoder<Value: Decodable> {
    private let decode: (UnsafeRawBufferPointer) throws -> Value

    /// A decoder that runs `decode` on each payload.
    public init(_ decode: @escaping (UnsafeRawBufferPointer) throws -> Value) {
        self.decode = decode
    }

    /// Decodes one payload.
    public func callAsFunction(_ bytes: UnsafeRawBufferPointer) throws -> Value {
        try decode(bytes)
    }

    /// A decoder from one that makes `Generated`, which is `Value` itself, opened from
    /// `any BinaryCodable.Type` (a codec's generated reader). The function is cast once, here:
    /// converting each decoded value from `Generated` to `Value` instead (through a rebound
    /// pointer, in the codec's unspecialised code) copied and destroyed every action, about 5 %
    /// of reading and decoding a binary log (`rewind-bench --workload replay`, profiled).
    init<Generated: Decodable>(generated decode: @escaping (UnsafeRawBufferPointer) throws -> Generated) {
        // A checked cast, which converts the function's calling convention where it must (a
        // bit cast did not, and read a value returned in registers from memory).
        guard let same = decode as? (UnsafeRawBufferPointer) throws -> Value else {
            preconditionFailure("a generated reader for \(Generated.self) used as \(Value.self)'s")
        }
        self.init(same)
    }
}
