import Foundation

/// Any JSON value: how a report embeds what has no Swift type of its own here (a payload stored
/// as JSON text, an app's state or action re-encoded as JSON).
enum JSONValue: Codable, Equatable, Sendable {
    case null
    case bool(Bool)
    /// A whole number, kept exact (a `Double` would round beyond 2^53).
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The JSON document in `data`, or `nil` when it is not JSON (a binary payload).
    init?(json data: Data) {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: data) else { return nil }
        self = value
    }

    /// A value's JSON form, through its `Encodable` conformance, as people read it (see
    /// ``readableEncoder()``).
    init(encoding value: some Encodable) throws {
        self = try JSONDecoder().decode(JSONValue.self, from: Self.readableEncoder().encode(value))
    }

    /// How the tool shows an app's state or action as JSON (reports, the inspector, `--where`):
    /// a `Date` as ISO-8601 text in UTC with milliseconds (`2026-11-26T21:50:08.904Z`), not
    /// Foundation's default seconds since 2001. ISO-8601 text in one form orders as its dates
    /// do, so `--where 'checkout.orders[0].placedAt < "2026-11-01"'` compares them.
    static func readableEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Rendering.timestamp(date.timeIntervalSince1970))
        }
        return encoder
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let integer = try? container.decode(Int64.self) {
            self = .integer(integer)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSONValue].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case let .bool(bool): try container.encode(bool)
        case let .integer(integer): try container.encode(integer)
        case let .number(number): try container.encode(number)
        case let .string(string): try container.encode(string)
        case let .array(array): try container.encode(array)
        case let .object(object): try container.encode(object)
        }
    }
}
