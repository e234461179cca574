import Foundation

/// A JSON value as `SortedJSONEncoder` builds it, written out once the whole value is
/// encoded: `Codable` containers have no "end", and a container may be written to after its
/// siblings, so objects and arrays are references until then.
enum JSONNode {
    case null
    case bool(Bool)
    /// A number, already formatted as Foundation's `JSONEncoder` formats it.
    case number(String)
    case string(String)
    case array(JSONArray)
    case object(JSONObject)
    /// What a `superEncoder()` encodes, known only once its user is done with it.
    case deferred(SortedJSONEncoder.ValueEncoder)
}

/// The elements of an array being encoded.
final class JSONArray {
    var elements: [JSONNode] = []
}

/// The members of an object being encoded, in the order they were encoded.
final class JSONObject {
    var keys: [String] = []
    var values: [JSONNode] = []

    func set(_ key: String, _ value: JSONNode) {
        keys.append(key)
        values.append(value)
    }
}

extension JSONNode {
    /// Appends the value's JSON as Foundation's `JSONEncoder` writes it with `.sortedKeys`:
    /// members in ascending order of their keys (the last one wins where a key was encoded
    /// twice), no white space, `/` escaped as `\/`, other escapes as short as JSON allows.
    func write(into bytes: inout [UInt8]) {
        switch self {
        case .null:
            bytes.append(contentsOf: "null".utf8)
        case let .bool(value):
            bytes.append(contentsOf: (value ? "true" : "false").utf8)
        case let .number(text):
            bytes.append(contentsOf: text.utf8)
        case let .string(text):
            Self.writeString(text, into: &bytes)
        case let .array(array):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in array.elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                element.write(into: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case let .object(object):
            bytes.append(UInt8(ascii: "{"))
            var first = true
            for index in Self.sortedMembers(object.keys) {
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                Self.writeString(object.keys[index], into: &bytes)
                bytes.append(UInt8(ascii: ":"))
                object.values[index].write(into: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        case let .deferred(encoder):
            (encoder.node ?? .object(JSONObject())).write(into: &bytes)
        }
    }

    /// The indices of the members to write, in key order, each key once (its last value).
    private static func sortedMembers(_ keys: [String]) -> [Int] {
        if keys.count < 2 { return Array(keys.indices) }
        // Ties broken by position, so that of equal keys the last encoded comes last.
        let sorted = keys.indices.sorted { keys[$0] < keys[$1] || (keys[$0] == keys[$1] && $0 < $1) }
        var members: [Int] = []
        members.reserveCapacity(sorted.count)
        for (position, index) in sorted.enumerated() {
            if position + 1 < sorted.count, keys[sorted[position + 1]] == keys[index] { continue }
            members.append(index)
        }
        return members
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// A JSON string: the UTF-8 bytes as they are, but for quotes, backslashes, slashes and
    /// control characters.
    private static func writeString(_ text: String, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\\")); bytes.append(byte)
            case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\")); bytes.append(byte)
            case UInt8(ascii: "/"): bytes.append(UInt8(ascii: "\\")); bytes.append(byte)
            case 0x0A: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "t"))
            case 0x08: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "b"))
            case 0x0C: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "f"))
            case 0x00..<0x20:
                bytes.append(contentsOf: "\\u00".utf8)
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0x0F)])
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// A floating-point number as Foundation's `JSONEncoder` writes it: its shortest
    /// round-tripping form, without a trailing `.0`.
    static func number<F: BinaryFloatingPoint & LosslessStringConvertible>(_ value: F) -> String {
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }
}
