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
    /// One field of one line, found by walking the line (`source.line`, `session.app.version`),
    /// set to an edge value: structure-aware, so a valid line carries a 2^63 integer or a 1 MB
    /// string, which random damage almost never makes.
    case edge(line: Int, path: [String], value: String)
    /// `count` symbol lines after line `line`, each id `skip` past the one before.
    case symbolFlood(line: Int, count: Int, skip: Int64)

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
        case let .edge(line, path, value): "line \(line + 1): \(path.joined(separator: ".")) = \(value.count > 40 ? "\(value.prefix(20))… (\(value.count) bytes)" : value)"
        case let .symbolFlood(line, count, skip): "\(count) symbol lines after line \(line + 1), each id \(skip) past the last"
        }
    }

    /// Integers at the edges of every width a reader might convert them to, numbers JSON
    /// allows and Swift's integers do not hold, and strings a reader might choke on.
    static let edgeValues = [
        "0", "-1", "1", "2147483648", "4294967296", "9007199254740993", "9223372036854775807", "9223372036854775808",
        "-9223372036854775808", "-9223372036854775809", "18446744073709551615", "18446744073709551616", "1e400", "-1e400", "0.5",
        "\"\\u0000\"", "\"\\ud800\"", "\"" + String(repeating: "z", count: 1_000_000) + "\"", "null",
    ]

    /// Every field (to three levels deep) of the first line of each type, at each edge value,
    /// then symbol floods: the deterministic cases the import fuzzer runs first.
    static func edges(of export: Data) -> [ExportMutation] {
        var seenTypes: Set<String> = []
        var mutations: [ExportMutation] = []
        let lines = export.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        for (index, line) in lines.enumerated() {
            guard let object = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any],
                  let type = object["type"] as? String, seenTypes.insert(type).inserted else { continue }
            for path in leafPaths(of: object, depth: 3) where path != ["type"] {
                for value in edgeValues { mutations.append(.edge(line: index, path: path, value: value)) }
            }
            if type == "header" {
                for (count, skip) in [(2, Int64(65_537)), (1_000, 65_537), (3, 4_294_967_296), (2, Int64.max / 2)] {
                    mutations.append(.symbolFlood(line: index, count: count, skip: skip))
                }
            }
        }
        return mutations
    }

    /// The paths of every value in `object` that is not itself an object.
    private static func leafPaths(of object: [String: Any], depth: Int) -> [[String]] {
        object.keys.sorted().flatMap { key -> [[String]] in
            if depth > 1, let inner = object[key] as? [String: Any] {
                return leafPaths(of: inner, depth: depth - 1).map { [key] + $0 }
            }
            return [[key]]
        }
    }

    /// `object` with the value at `path` replaced by a placeholder string.
    private static func placing(_ placeholder: String, at path: [String], in object: [String: Any]) -> [String: Any] {
        var object = object
        guard let key = path.first else { return object }
        if path.count == 1 {
            object[key] = placeholder
        } else if let inner = object[key] as? [String: Any] {
            object[key] = placing(placeholder, at: Array(path.dropFirst()), in: inner)
        }
        return object
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
        // Each line and its newline appended in turn: `Data(lines.joined(separator:))` walked a
        // `JoinedSequence` byte by byte, a third of a debug fuzz run's time (CI runs it in debug).
        func joined() -> Data {
            var data = Data(capacity: lines.reduce(1) { $0 + $1.count + 1 })
            for line in lines {
                data.append(line)
                data.append(UInt8(ascii: "\n"))
            }
            if lines.isEmpty { data.append(UInt8(ascii: "\n")) }
            return data
        }
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
        case let .edge(line, path, value):
            guard let object = (try? JSONSerialization.jsonObject(with: lines[line])) as? [String: Any],
                  let encoded = try? JSONSerialization.data(withJSONObject: Self.placing("\u{1}PLACEHOLDER\u{1}", at: path, in: object), options: [.sortedKeys])
            else { break }
            lines[line] = Data(String(decoding: encoded, as: UTF8.self).replacingOccurrences(of: "\"\\u0001PLACEHOLDER\\u0001\"", with: value).utf8)
        case let .symbolFlood(line, count, skip):
            var id: Int64 = 0
            let flood = (0..<count).map { index -> Data in
                id = id > Int64.max - skip ? Int64.max : id + skip
                return Data(#"{"id":\#(id),"name":"flood\#(index)","type":"symbol"}"#.utf8)
            }
            lines.insert(contentsOf: flood, at: line + 1)
        }
        return joined()
    }
}
