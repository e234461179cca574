import Foundation
import Rewind
import RewindCoding
import RewindExamples
@testable import RewindLogCore
@testable import RewindSQLite
import RewindTestSupport
import Testing

/// An import reads an export's event lines with the JSON codec's reader, and hands every line it
/// is unsure of to Foundation's decoder: so that reader must never read a line Foundation
/// refuses, nor read one differently.
@Suite("Export event lines by the fast reader")
struct EventLineReaderTests {
    /// An export's lines, of a session whose sources have every field: notes, origins other
    /// than a call, columns, a path file; `binary` for base64 payloads, else JSON text.
    static func exportedLines(binary: Bool, in folder: TemporaryDirectory) throws -> [String] {
        let log = try EventLog(path: folder.file("\(binary).rewind"))
        let session = binary
            ? try log.beginSession(app: AppIdentity(id: "com.example.shop"), codec: BinaryPayloadCodec(), initialState: ShopState())
            : try log.beginSession(app: AppIdentity(id: "com.example.shop"), initialState: ShopState())
        var random = SeededRandom(seed: 42)
        let origins = ActionSource.Origin.allCases
        var records: [EventRecord<ShopAction>] = []
        for index in 0..<400 {
            let file = index % 7 == 0 ? "/Users/dev/Shop/Sources/Cart \"é\".swift" : "Shop/Cart.swift"
            let info: String? = index % 3 == 0 ? "note \(index)\n\t\"quoted\" 😀" : nil
            let source = ActionSource(
                file: file, function: "tap(_:)", line: UInt(index + 1), column: UInt(index % 5),
                info: info, origin: origins[index % origins.count]
            )
            let time = Date(timeIntervalSince1970: 1_764_612_345.123 + Double(index) / 7)
            records.append(EventRecord(Shop.randomAction(using: &random, in: ShopState()), source: source, time: time))
        }
        try log.append(records, to: session)
        let url = URL(fileURLWithPath: folder.file("\(binary).jsonl"))
        try log.export(to: url)
        return String(decoding: try Data(contentsOf: url), as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// The line as Foundation's decoder reads it (through the import's own `ExportLine`), `nil`
    /// when it refuses it or it is not an event's.
    static func foundation(_ line: Data) -> PortableLog.EventLine? {
        guard case let .event(event)? = try? JSONDecoder().decode(ExportLine.self, from: line) else { return nil }
        return event
    }

    /// Both readers' values compared by their encodings (keys sorted, so field by field).
    static func same(_ a: PortableLog.EventLine, _ b: PortableLog.EventLine) throws -> Bool {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try encoder.encode(a) == encoder.encode(b)
    }

    @Test("every event line of an export, JSON and binary payloads, is read by the fast reader as Foundation reads it", arguments: [false, true])
    func exportedEvents(binary: Bool) throws {
        let folder = try TemporaryDirectory()
        let lines = try Self.exportedLines(binary: binary, in: folder)
        let events = lines.filter { $0.contains(#""type":"event""#) }
        #expect(events.count == 400)
        for line in events {
            let fast = try #require(PortableLog.EventLine(plainJSON: Data(line.utf8)), "the fast reader was unsure of \(line)")
            let reference = try #require(Self.foundation(Data(line.utf8)))
            #expect(try Self.same(fast, reference), "\(line)")
        }
        // No other line is taken for an event's.
        for line in lines where !line.contains(#""type":"event""#) {
            #expect(PortableLog.EventLine(plainJSON: Data(line.utf8)) == nil, "\(line)")
        }
    }

    /// One event line, rewritten: the fast reader must be unsure of each (Foundation refuses
    /// some, reads others in ways the fast reader does not try).
    @Test("lines it must leave to Foundation: refused values, odd keys, numbers and strings")
    func unsure() throws {
        let base = #"{"type":"event","seq":3,"session":1,"time":1764612345.5,"action":"cart.clear","payload":"e30=","encoding":"base64","source":{"file":"Shop/Cart.swift","function":"f()","line":12,"column":4,"origin":"effect"}}"#
        #expect(PortableLog.EventLine(plainJSON: Data(base.utf8)) != nil, "the base line itself is plain")
        let variants: [(String, String)] = [
            ("a line past Int64.max", base.replacingOccurrences(of: #""line":12"#, with: #""line":9223372036854775808"#)),
            ("a column past Int64.max", base.replacingOccurrences(of: #""column":4"#, with: #""column":18446744073709551615"#)),
            ("no line", base.replacingOccurrences(of: #""line":12,"#, with: "")),
            ("a null line", base.replacingOccurrences(of: #""line":12"#, with: #""line":null"#)),
            ("an unknown origin", base.replacingOccurrences(of: #""effect""#, with: #""telepathy""#)),
            ("a seq with a fraction", base.replacingOccurrences(of: #""seq":3"#, with: #""seq":3.0"#)),
            ("a seq with an exponent", base.replacingOccurrences(of: #""seq":3"#, with: #""seq":3e0"#)),
            ("a seq written as text", base.replacingOccurrences(of: #""seq":3"#, with: #""seq":"3""#)),
            ("a seq past Int64.max", base.replacingOccurrences(of: #""seq":3"#, with: #""seq":9223372036854775808"#)),
            ("a time out of range", base.replacingOccurrences(of: #""time":1764612345.5"#, with: #""time":1e400"#)),
            ("a key twice", base.replacingOccurrences(of: #""seq":3,"#, with: #""seq":3,"seq":4,"#)),
            ("an escaped key", base.replacingOccurrences(of: #""seq":3"#, with: #""se\u0071":3"#)),
            ("a lone surrogate", base.replacingOccurrences(of: #""f()""#, with: #""\ud800""#)),
            ("another type", base.replacingOccurrences(of: #""type":"event""#, with: #""type":"gap""#)),
            ("no type", base.replacingOccurrences(of: #""type":"event","#, with: "")),
            ("a source that is not an object", base.replacing(#/"source":\{[^}]*\}/#, with: #""source":"x""#)),
            ("a trailing comma", base.replacingOccurrences(of: "}}", with: "},}")),
            ("not JSON", "event"),
        ]
        var lines = variants.map { ($0, Data($1.utf8)) }
        // A byte that is not UTF-8 in a string the line is read for (Foundation refuses it).
        lines.append(("invalid UTF-8", Data(base.utf8.map { $0 == UInt8(ascii: "C") ? 0x80 : $0 })))
        for (what, line) in lines {
            #expect(line != Data(base.utf8), "\(what): the variant changed the line")
            #expect(PortableLog.EventLine(plainJSON: line) == nil, "\(what): \(String(decoding: line, as: UTF8.self))")
        }
    }

    /// Lines both read, whatever the fast reader does with them: when it reads one, it reads
    /// Foundation's value; when Foundation refuses one, it does too.
    @Test("rewritten and mutated lines: never a value Foundation refuses, never another value")
    func agreesWithFoundation() throws {
        let folder = try TemporaryDirectory()
        let events = try Self.exportedLines(binary: false, in: folder).filter { $0.contains(#""type":"event""#) }.prefix(40)
        var lines: [Data] = []
        func add(_ line: String) { lines.append(Data(line.utf8)) }
        for line in events {
            add(line)
            add(line.replacingOccurrences(of: #"{"type":"event","#, with: #"{"type" : "event" , "extra":[1,{"a":null}],"#))
            add(line.replacingOccurrences(of: #","origin":"call""#, with: ""))
            add(line.replacingOccurrences(of: #""seq":"#, with: #""redaction":null,"root":null,"seq":"#))
            add(line.replacingOccurrences(of: #""time":"#, with: #""time":-0,"old":"#))
        }
        // Bytes flipped, dropped and repeated at random (seeded).
        var random = SeededRandom(seed: 7)
        for line in events {
            for _ in 0..<40 {
                var bytes = Array(line.utf8)
                let at = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[at] = UInt8.random(in: 0...255, using: &random)
                case 1: bytes.remove(at: at)
                default: bytes.insert(bytes[at], at: at)
                }
                lines.append(Data(bytes))
            }
        }
        var fastRead = 0
        for line in lines {
            let reference = Self.foundation(line)
            guard let fast = PortableLog.EventLine(plainJSON: line) else { continue }
            fastRead += 1
            let text = String(decoding: line, as: UTF8.self)
            let expected = try #require(reference, "the fast reader read a line Foundation refuses: \(text)")
            #expect(try Self.same(fast, expected), "\(text)")
        }
        // The rewritten lines are plain: the fast reader reads most lines, not none.
        #expect(fastRead >= 200, "\(fastRead) of \(lines.count) read fast")
    }
}
