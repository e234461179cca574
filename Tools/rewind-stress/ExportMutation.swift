import Foundation
import Rewind

/// One way to damage an export (JSON Lines) before `import` reads it: cut lines, duplicated and
/// reordered ones, values of the wrong type, numbers out of range, invalid UTF-8, a line of
/// 100 MB.
enum ExportMutation: CustomStringConvertible {
    case truncateFile(at: Int)
    case truncateLine(Int)
    case duplicateLine(Int)
    case swapLines(Int, Int)
    case dropLine(Int)
    case retype(line: Int, key: String, value: String)
    case invalidUTF8(line: Int)
    case hugeLine(bytes: Int)
    case replaceAll(String, why: String)

    var description: String {
        switch self {
        case let .truncateFile(at): "truncate the file at byte \(at)"
        case let .truncateLine(line): "cut line \(line + 1) in half"
        case let .duplicateLine(line): "duplicate line \(line + 1)"
        case let .swapLines(a, b): "swap lines \(a + 1) and \(b + 1)"
        case let .dropLine(line): "drop line \(line + 1)"
        case let .retype(line, key, value): "line \(line + 1): \(key) = \(value.prefix(40))"
        case let .invalidUTF8(line): "invalid UTF-8 in line \(line + 1)"
        case let .hugeLine(bytes): "a line of \(bytes / 1_000_000) MB"
        case let .replaceAll(_, why): why
        }
    }

    /// The mutation of case `index`; one case in 5,000 is the 100 MB line.
    static func draw(case index: Int, lines: Int, bytes: Int, random: inout SeededRandom) -> ExportMutation {
        if index % 5_000 == 4_999 { return .hugeLine(bytes: 100_000_000) }
        let line = random.int(below: lines)
        let keys = ["type", "seq", "session", "time", "case", "payload", "encoding", "source", "state", "kind", "version", "format", "schemaVersion", "id", "baseSeq", "seqRange", "codec", "app", "line", "redaction", "lost"]
        let values = [
            "null", "\"x\"", "-1", "0", "9223372036854775807", "-9223372036854775808", "1e400", "99999999999999999999999", "1.5",
            "[]", "{}", "[1,2,3]", "true", "\"\\u0000\"", "\"" + String(repeating: "y", count: 10_000) + "\"", "{\"a\":{\"b\":{\"c\":[[[[[]]]]]}}}",
        ]
        switch random.int(below: 10) {
        case 0: return .truncateFile(at: random.int(below: bytes))
        case 1: return .truncateLine(line)
        case 2: return .duplicateLine(line)
        case 3: return .swapLines(line, random.int(below: lines))
        case 4: return .dropLine(line)
        case 5, 6, 7: return .retype(line: line, key: keys[random.int(below: keys.count)], value: values[random.int(below: values.count)])
        case 8: return .invalidUTF8(line: line)
        default:
            let whole: [(String, String)] = [
                ("", "an empty file"), ("\n\n\n", "blank lines only"), ("{}", "an empty object"), ("[1,2]\n", "an array line"),
                (String(repeating: "{", count: 100_000), "100,000 nested braces"), ("\u{FEFF}{\"type\":\"header\"}\n", "a byte-order mark"),
                ("{\"format\":\"rewind-export\",\"type\":\"header\",\"version\":99}\n", "a newer export version"),
            ]
            let (text, why) = whole[random.int(below: whole.count)]
            return .replaceAll(text, why: why)
        }
    }

    /// The damaged export.
    func apply(to export: Data, random: inout SeededRandom) -> Data {
        var lines = export.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { Data($0) }
        if lines.last?.isEmpty == true { lines.removeLast() }
        func joined() -> Data { Data(lines.joined(separator: [UInt8(ascii: "\n")])) + Data("\n".utf8) }
        switch self {
        case let .truncateFile(at):
            return export.prefix(at)
        case let .truncateLine(line):
            lines[line] = lines[line].prefix(lines[line].count / 2)
        case let .duplicateLine(line):
            lines.insert(lines[line], at: line)
        case let .swapLines(a, b):
            lines.swapAt(a, b)
        case let .dropLine(line):
            lines.remove(at: line)
        case let .retype(line, key, value):
            guard var object = (try? JSONSerialization.jsonObject(with: lines[line])) as? [String: Any] else { break }
            // A key nested one level down (the session's fields) as often as a top-level one.
            if object[key] == nil, let nested = object.first(where: { $0.value is [String: Any] }), var inner = nested.value as? [String: Any] {
                inner[key] = "\u{1}PLACEHOLDER\u{1}"
                object[nested.key] = inner
            } else {
                object[key] = "\u{1}PLACEHOLDER\u{1}"
            }
            guard let encoded = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { break }
            lines[line] = Data(String(decoding: encoded, as: UTF8.self).replacingOccurrences(of: "\"\\u0001PLACEHOLDER\\u0001\"", with: value).utf8)
        case let .invalidUTF8(line):
            let at = random.int(below: max(1, lines[line].count))
            lines[line].insert(contentsOf: [0xff, 0xfe, 0xc3], at: lines[line].startIndex + at)
        case let .hugeLine(bytes):
            var huge = Data(#"{"type":"event","seq":1,"session":1,"case":"x","payload":""#.utf8)
            huge.append(Data(repeating: UInt8(ascii: "a"), count: bytes))
            huge.append(Data(#""}"#.utf8))
            lines.insert(huge, at: min(2, lines.count))
        case let .replaceAll(text, _):
            return Data(text.utf8)
        }
        return joined()
    }
}
