import Foundation
import RewindCoding

/// The shapes an app's actions take — nested enums, labelled and unlabelled payloads,
/// optionals, collections, dictionaries, UUIDs, dates, raw values — twice: with generated
/// binary coding (`@BinaryCodable`, read by generated code) and with `Codable` alone (read by
/// the binary codec's `Decoder`).
@BinaryCodable
public enum GeneratedAction: Codable, Sendable {
    case cart(GeneratedCart)
    case load(at: Date, page: Int?)
    case rename(UUID, String)
    case batch([GeneratedCart])
    case tags(Set<String>, counts: [String: Int])
    case filter(GeneratedFilter)
    case reset
}

@BinaryCodable
public enum GeneratedCart: Codable, Sendable {
    case add(productID: String, quantity: Int, note: String?)
    case line(GeneratedLine)
    case clear
}

@BinaryCodable
public struct GeneratedLine: Codable, Sendable {
    public var id: UUID
    public var price: Double
    public var quantities: [Int8]
    public var nested: [[String?]]
    public var flag: Bool?
}

@BinaryCodable
public enum GeneratedFilter: String, Codable, Sendable {
    case all, active, done
}

/// The same shapes through `Codable` only.
public enum PlainAction: Codable, Sendable {
    case cart(PlainCart)
    case load(at: Date, page: Int?)
    case rename(UUID, String)
    case batch([PlainCart])
    case tags(Set<String>, counts: [String: Int])
    case filter(GeneratedFilter)
    case reset
}

public enum PlainCart: Codable, Sendable {
    case add(productID: String, quantity: Int, note: String?)
    case line(PlainLine)
    case clear
}

public struct PlainLine: Codable, Sendable {
    public var id: UUID
    public var price: Double
    public var quantities: [Int8]
    public var nested: [[String?]]
    public var flag: Bool?
}

/// One value of every case, as the seed corpus encodes them.
public let plainSamples: [PlainAction] = {
    let line = PlainLine(id: UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)), price: 1.5, quantities: [1, -2], nested: [["a", nil]], flag: true)
    return [
        .cart(.add(productID: "tea", quantity: 2, note: nil)), .cart(.add(productID: "mug", quantity: -1, note: "gift")),
        .cart(.line(line)), .load(at: Date(timeIntervalSince1970: 1_800_000_000), page: 3), .load(at: Date(timeIntervalSince1970: 0), page: nil),
        .rename(line.id, String(repeating: "long name ", count: 20)), .batch([.clear, .line(line)]), .tags(["a", "b"], counts: ["b": 1, "c": -7]),
        .filter(.done), .reset,
    ]
}()

/// A binary codec that knows the coding keys of the fuzzed types, as a log's codec does after
/// reading its symbols: fuzzed bytes can then refer to real keys by id.
public func primedBinaryCodec() -> BinaryPayloadCodec {
    let codec = BinaryPayloadCodec()
    for sample in plainSamples { _ = try? codec.encode(sample) }
    return codec
}
