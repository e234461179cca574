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

    /// Symbols (interned coding keys) this codec assigned that the log file may not hold yet.
    /// Codecs without symbols return none.
    func unpersistedSymbols() -> [CodecSymbol]
    /// Marks symbols up to `id` as stored in the log file.
    func markPersisted(upTo id: Int64)
    /// Adds symbols read from the log file.
    func learn(_ symbols: [CodecSymbol])
    /// Forgets symbols assigned after the last stored one (their transaction rolled back).
    func forgetUnpersistedSymbols()
}

extension PayloadCodec {
    /// Copies the bytes into `Data` and decodes that.
    public func decode<Value: Decodable>(_ type: Value.Type, from bytes: UnsafeRawBufferPointer) throws -> Value {
        try decode(type, from: Data(bytes))
    }

    /// None: this codec does not intern symbols.
    public func unpersistedSymbols() -> [CodecSymbol] { [] }
    /// Nothing to mark.
    public func markPersisted(upTo id: Int64) {}
    /// Nothing to learn.
    public func learn(_ symbols: [CodecSymbol]) {}
    /// Nothing to forget.
    public func forgetUnpersistedSymbols() {}
}

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

/// The codecs a log can use, by name.
///
/// It holds a way to make each codec: every ``EventLog`` makes its own instances, because a
/// codec with symbols (the binary one) keeps a table that belongs to one log file.
public struct PayloadCodecs: Sendable {
    private let makers: [String: @Sendable () -> any PayloadCodec]
    private let instances: [String: any PayloadCodec]

    /// A set of codecs, each made by a function.
    ///
    /// - Parameter makers: Functions making the codecs; later ones win on a name clash.
    public init(_ makers: [@Sendable () -> any PayloadCodec]) {
        var byName: [String: @Sendable () -> any PayloadCodec] = [:]
        for make in makers { byName[make().name] = make }
        self.makers = byName
        instances = byName.mapValues { $0() }
    }

    /// The codecs Rewind ships: JSON and binary.
    public static let standard = PayloadCodecs([{ JSONPayloadCodec() }, { BinaryPayloadCodec() }])

    /// The codec with `name`, or `nil`.
    public subscript(name: String) -> (any PayloadCodec)? {
        instances[name]
    }

    /// Every codec instance.
    var all: [any PayloadCodec] { Array(instances.values) }

    /// Fresh instances of the same codecs, for one log.
    func fresh() -> PayloadCodecs {
        PayloadCodecs(Array(makers.values))
    }
}
