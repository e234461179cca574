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

/// A codec that interns coding keys as numbered symbols kept in the log's `symbols` table (the
/// binary codec). Internal: the log drives it, inside the transactions that store payloads.
protocol SymbolInterning: Sendable {
    /// Symbols this codec assigned that the log file may not hold yet.
    func unpersistedSymbols() -> [CodecSymbol]
    /// Marks symbols up to `id` as stored in the log file.
    func markPersisted(upTo id: Int64)
    /// Adds symbols read from the log file.
    ///
    /// - Throws: ``SymbolTableDamage`` when the file gives a known id another name, or ids no
    ///   writer would have made.
    func learn(_ symbols: [CodecSymbol]) throws
    /// Forgets symbols assigned after the last stored one (their transaction rolled back).
    func forgetUnpersistedSymbols()
}

/// Symbols in the log file that cannot be right, never silently accepted: payloads encoded with
/// one name would decode with another's.
enum SymbolTableDamage: Error, CustomStringConvertible {
    /// The file names a known id differently from this connection's table.
    case conflict(id: Int64, inFile: String, known: String)
    /// An id no writer makes: below 1, or far past the ids before it (writers number densely).
    case outOfRange(id: Int64)

    var description: String {
        switch self {
        case let .conflict(id, inFile, known): "symbol \(id) is '\(inFile)' in the log but '\(known)' in this connection's table"
        case let .outOfRange(id): "symbol id \(id) is out of range"
        }
    }
}

extension PayloadCodec {
    /// Copies the bytes into `Data` and decodes that.
    public func decode<Value: Decodable>(_ type: Value.Type, from bytes: UnsafeRawBufferPointer) throws -> Value {
        try decode(type, from: Data(bytes))
    }

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

    /// The codecs that keep symbols in the log.
    var interning: [any SymbolInterning] { instances.values.compactMap { $0 as? any SymbolInterning } }

    /// Fresh instances of the same codecs, for one log.
    func fresh() -> PayloadCodecs {
        PayloadCodecs(Array(makers.values))
    }
}
