import Foundation
import Rewind
import RewindCoding
@testable import RewindCodingCore
import RewindExamples
import Testing

/// The JSON codec reads `@BinaryCodable` types with generated code and hands anything it is
/// unsure of to Foundation's decoder. Its promise: for every input, the value Foundation's
/// `JSONDecoder` decodes (bit for bit) or the error it throws (case, coding path and message).
/// Each test compares the codec with Foundation itself, and checks that the generated path is
/// the one taken where it should be (otherwise agreement would hold with no reader at all).
@Suite("JSON codec's generated readers")
struct JSONReaderTests {
    @BinaryCodable
    enum Shape: Codable, Equatable {
        case none
        case labelled(name: String, count: Int)
        case unlabelled(Int, String)
        case mixed(Int, label: String?, Double?)
        indirect case nested(Shape?)
        case `default`
    }

    @BinaryCodable
    enum Level: Int, Codable, Equatable { case low = 1, high = 300 }

    @BinaryCodable
    enum Raw: String, Codable, Equatable { case one, two }

    @BinaryCodable
    struct Empty: Codable, Equatable {}

    /// Not annotated: read through Foundation's decoder over its bytes.
    struct Plain: Codable, Equatable { var tags: [String] }

    @BinaryCodable
    struct Everything: Codable, Equatable {
        var text = "naïve café — 日本語 🎉 \u{0} \"quoted\" back\\slash \n\t\u{7F} \u{2028}"
        var optional: Int?
        var nestedOptional: Int??
        var `default` = true
        var flags = [true, false]
        var big: [Int64] = [.min, .max, 0, -1]
        var unsigned: UInt64 = .max
        var small: [Int8] = [.min, .max]
        var sizes: [UInt16] = [0, .max]
        var int32: Int32 = .min
        var uint32: UInt32 = .max
        var uint: UInt = .max
        var int16: Int16 = .min
        var uint8: UInt8 = .max
        var date = Date(timeIntervalSinceReferenceDate: 812_345_678.123456)
        var uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        var data = Data([0, 1, 2, 255])
        var url = URL(string: "https://example.com/a?b=c")!
        var doubles: [Double] = [0, -0.0, .pi, 1e300, -2.5e-300, .greatestFiniteMagnitude, 123_456_789_012_345]
        var float: Float = 1.5
        var floats: [Float] = [0.1, -3.4028235e38, .leastNormalMagnitude]
        var shapes: [Shape] = [.none, .labelled(name: "x", count: -3), .unlabelled(7, "seven"), .mixed(1, label: nil, 2.5),
                               .nested(.nested(nil)), .nested(Shape.none), .default]
        var level = Level.high
        var raws: [Raw?] = [.one, nil, .two]
        var arrays: [[String?]] = [[], ["a", nil], [nil]]
        var many = Array(0..<300)
        var dictionary: [String: Int] = ["a": 1]
        var plain = Plain(tags: ["x"])
        var plains: [Plain]? = [Plain(tags: [])]
        var empty = Empty()
    }

    /// What decoding gives: a value (as Foundation's encoder writes it, so -0.0 and 0.0 differ)
    /// or an error's full description.
    enum Outcome: Equatable, CustomStringConvertible {
        case value(String)
        case error(String)

        var description: String {
            switch self {
            case let .value(text): "value \(text)"
            case let .error(text): "error \(text)"
            }
        }
    }

    static let foundationEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    static func outcome<T: Codable>(_ decode: () throws -> T) -> Outcome {
        do {
            let value = try decode()
            return .value(String(decoding: try foundationEncoder.encode([value]), as: UTF8.self))
        } catch {
            return .error(String(describing: error))
        }
    }

    /// The codec and Foundation agree on `bytes` as a `T`; returns whether the generated path answered.
    @discardableResult
    static func expectAgreement<T: Codable & BinaryCodable>(
        _ type: T.Type, _ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation
    ) -> Bool {
        let data = Data(bytes)
        let codec = JSONPayloadCodec()
        let ours = outcome { try codec.decode(T.self, from: data) }
        let inPlace = outcome { try data.withUnsafeBytes { try codec.decoder(for: T.self)($0) } }
        let foundation = outcome { try JSONDecoder().decode(T.self, from: data) }
        #expect(ours == foundation, "\(String(decoding: bytes, as: UTF8.self))", sourceLocation: sourceLocation)
        #expect(inPlace == foundation, "\(String(decoding: bytes, as: UTF8.self))", sourceLocation: sourceLocation)
        return data.withUnsafeBytes { JSONReader.read(T.self, from: $0) } != nil
    }

    static func expectAgreement<T: Codable & BinaryCodable>(
        _ type: T.Type, _ text: String, fast: Bool? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let taken = expectAgreement(type, Array(text.utf8), sourceLocation: sourceLocation)
        if let fast { #expect(taken == fast, "generated path taken: \(taken), for \(text)", sourceLocation: sourceLocation) }
    }

    @Test("the example apps' sessions: every action and state the encoder writes reads by the generated path, as Foundation reads it")
    func exampleApps() async throws {
        let codec = JSONPayloadCodec()
        var shop = ShopState(), todo = TodoState()
        var fast = 0
        for dispatched in await Shop.sessionActions(count: 2_000, seed: 21) {
            let bytes = Array(try codec.encode(dispatched.action))
            fast += Self.expectAgreement(ShopAction.self, bytes) ? 1 : 0
            Shop.reducer(&shop, dispatched.action)
        }
        for dispatched in await Todo.sessionActions(count: 2_000, seed: 21) {
            let bytes = Array(try codec.encode(dispatched.action))
            fast += Self.expectAgreement(TodoAction.self, bytes) ? 1 : 0
            Todo.reducer(&todo, dispatched.action)
        }
        #expect(fast == 4_000)
        #expect(!shop.catalogue.products.isEmpty)
        for product in shop.catalogue.products { #expect(Self.expectAgreement(Product.self, Array(try codec.encode(product)))) }
        for discount in shop.catalogue.discounts { #expect(Self.expectAgreement(Discount.self, Array(try codec.encode(discount)))) }
    }

    @Test("edge values: integers at their extremes, doubles and floats, escapes and non-ASCII, dates, UUIDs, data, URLs, nested optionals, Codable-only fields")
    func edgeValues() throws {
        let codec = JSONPayloadCodec()
        var value = Everything()
        #expect(Self.expectAgreement(Everything.self, Array(try codec.encode(value))))
        value.optional = 5
        value.nestedOptional = .some(nil)
        value.plains = nil
        #expect(Self.expectAgreement(Everything.self, Array(try codec.encode(value))))
        value.nestedOptional = .some(.some(-9))
        value.uuid = UUID()
        #expect(Self.expectAgreement(Everything.self, Array(try codec.encode(value))))
        for shape in value.shapes { #expect(Self.expectAgreement(Shape.self, Array(try codec.encode(shape)))) }
        #expect(Self.expectAgreement(Empty.self, Array(try codec.encode(Empty()))))
        #expect(Self.expectAgreement(Level.self, Array(try codec.encode(Level.low))))
        #expect(Self.expectAgreement([Raw?].self, Array(try codec.encode(value.raws))))
        // Past the tape's 16 MB: no tape (it would take up to ten times the payload), the
        // payload Foundation's alone, and still its value.
        let huge = Array(try codec.encode([String(repeating: "a", count: JSONTape.maximumSize)]))
        #expect(huge.withUnsafeBytes { JSONReader.read([String].self, from: $0) } == nil)
        #expect(try codec.decode([String].self, from: Data(huge)).first?.count == JSONTape.maximumSize)
        let under = Array(try codec.encode([String(repeating: "a", count: JSONTape.maximumSize - 4)]))
        #expect(under.withUnsafeBytes { JSONReader.read([String].self, from: $0) }?.first?.count == JSONTape.maximumSize - 4)
        // A large value (a state, say): its tape on the heap rather than the stack.
        let large = Array(try codec.encode(Array(repeating: value, count: 40)))
        #expect(large.count > 50_000)
        #expect(Self.expectAgreement([Everything].self, large))
    }

    @Test("doubles and floats decode bit for bit as Foundation's: random bit patterns, and digit strings around rounding edges")
    func floatingPoint() {
        var random = SeededRandom(seed: 42)
        for _ in 0..<20_000 {
            let double = Double(bitPattern: random.next())
            if double.isFinite {
                Self.expectAgreement([Double].self, "[\(double)]")
            }
            let float = Float(bitPattern: UInt32(truncatingIfNeeded: random.next()))
            if float.isFinite {
                Self.expectAgreement([Float].self, "[\(float)]")
            }
            // 1 to 25 significant digits, a point somewhere, an exponent across the range.
            var digits = String(random.next() % 9 + 1)
            for _ in 0..<Int(random.next() % 25) { digits += String(random.next() % 10) }
            if random.next() % 2 == 0, digits.count > 1 {
                digits.insert(".", at: digits.index(digits.startIndex, offsetBy: Int(random.next() % UInt64(digits.count - 1)) + 1))
            }
            let exponent = Int(random.next() % 680) - 340
            let text = random.next() % 3 == 0 ? digits : "\(digits)e\(exponent)"
            Self.expectAgreement([Double].self, "[\(text), -\(text)]")
            Self.expectAgreement([Float].self, "[\(text)]")
        }
        for text in ["0", "-0", "0.0", "-0.0", "0e5", "1e-400", "-1e-400", "1e400", "4.9e-324", "2.2250738585072014e-308",
                     "2.2250738585072011e-308", "1.7976931348623157e308", "1.7976931348623159e308", "123456789012345",
                     "1234567890123456", "-99999999999999", "9007199254740993", "3.4028235e38", "3.4028236e38", "1e-46",
                     "1.17549435e-38", "1.4e-45", "16777217", "0.1", "1E2", "1e+2", "100000000000000000000000000000000",
                     "0E5", "-0e5", "0e-5", "0.0e5", "-0.0e1", "0.5e5", "10e5", "-0.0", "0.000"] {
            Self.expectAgreement([Double].self, "[\(text)]")
            Self.expectAgreement([Float].self, "[\(text)]")
        }
        Self.expectAgreement([Double].self, "[0, -0, 1.5, 1e300]", fast: true)
        // Out of range, below the normal range, or a zero spelled otherwise than "0": Foundation's
        // to judge (it refuses "0e5" but takes "0e+5").
        Self.expectAgreement([Double].self, "[0e5]", fast: false)
        Self.expectAgreement([Double].self, "[0e+5]", fast: false)
        Self.expectAgreement([Double].self, "[1e400]", fast: false)
        Self.expectAgreement([Double].self, "[1e-400]", fast: false)
        Self.expectAgreement([Double].self, "[4.9e-324]", fast: false)
    }

    @Test("integers at and past every type's edges, and spelled as Foundation also takes them (1.0, 1e2, -0)")
    func integers() {
        let edges: [String] = [
            "0", "-0", "1", "-1", "127", "128", "-128", "-129", "255", "256", "32767", "32768", "-32768", "-32769", "65535", "65536",
            "2147483647", "2147483648", "-2147483648", "-2147483649", "4294967295", "4294967296",
            "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
            "18446744073709551615", "18446744073709551616", "99999999999999999999999", "1.0", "1.5", "1e2", "-1e0", "1E+2", "0.0",
        ]
        for edge in edges {
            let text = "[\(edge)]"
            Self.expectAgreement([Int].self, text)
            Self.expectAgreement([Int8].self, text)
            Self.expectAgreement([Int16].self, text)
            Self.expectAgreement([Int32].self, text)
            Self.expectAgreement([Int64].self, text)
            Self.expectAgreement([UInt].self, text)
            Self.expectAgreement([UInt8].self, text)
            Self.expectAgreement([UInt16].self, text)
            Self.expectAgreement([UInt32].self, text)
            Self.expectAgreement([UInt64].self, text)
        }
        Self.expectAgreement([Int64].self, "[-9223372036854775808, 9223372036854775807]", fast: true)
        Self.expectAgreement([UInt64].self, "[18446744073709551615]", fast: true)
        Self.expectAgreement([Int].self, "[1.0]", fast: false)
        Self.expectAgreement([UInt8].self, "[-0]", fast: false)
        Self.expectAgreement([UInt8].self, "[256]", fast: false)
    }

    @Test("hostile and unusual JSON: each gives Foundation's value or Foundation's error")
    func hostile() {
        // Structure: Foundation is lenient in places (trailing commas, a byte-order mark, bad
        // escapes and invalid UTF-8 in strings it never reads, the first of two equal keys).
        let structs: [(String, Bool?)] = [
            (#"{"id":"a","note":"b"}"#, true),
            (#"{"note":"b","id":"a","extra":[1,{"x":null}]}"#, true),
            (#"{"id":"a","id":"b"}"#, false),
            (#"{"id":"a","note":null}"#, true),
            (#"{"id":"a","note":"b",}"#, false),
            (#"{"id":"a",}"#, false),
            ("\u{FEFF}{\"id\":\"a\"}", false),
            (#"{"\u0069d":"a"}"#, false),
            ("{\"\u{212A}\":\"a\",\"id\":\"b\"}", false),
            (#"{"id":"a","x":"\q"}"#, false),
            // An unread string's \u escape without four hex digits: Foundation refuses the
            // document (found by fuzz-json-payload), so the readers may not take it.
            (#"{"id":"a","x":"\uID"}"#, false),
            (#"{"id":"a","x":"\u12"}"#, false),
            (#"{"id":"a","x":"\u12G4"}"#, false),
            (#"{"id":"a","x":"\5"}"#, false),
            (#"{"id":"a","x":"\u00e9\uD83C\uDF89"}"#, true),
            (#"{"id":"a","x":"\ud800"}"#, nil),
            (#"{"id":"\ud800"}"#, false),
            (#"{"id":"\ud83c\udf89 \u00e9\u0000\/"}"#, true),
            (#"{"id":"\udf89"}"#, false),
            (#"{"id":1}"#, false),
            (#"{"id":null}"#, false),
            (#"{"note":"b"}"#, false),
            (#"{"id":"a"} x"#, false),
            (#"{"id":"a""#, false),
            (#"{"id" "a"}"#, false),
            (#"["id","a"]"#, false),
            ("", false),
            ("   ", false),
            ("null", false),
            (#" {"id" : "a" , "note" : "b" } "#, true),
            (#"{"id":"a","x":01}"#, false),
            (#"{"id":"a","x":-}"#, false),
            (#"{"id":"a","x":1.}"#, false),
            (#"{"id":"a","x":.5}"#, false),
            (#"{"id":"a","x":tru}"#, false),
            (#"{"id":"a","x":nulls}"#, false),
            (#"{"id":"a","x":1e400}"#, true),
            ("{\"id\":\"a\tb\"}", false),
        ]
        for (text, fast) in structs { Self.expectAgreement(Line.self, text, fast: fast) }
        // Cut short: more tokens begun than a whole document of that length could hold (found
        // by fuzz-json-payload: the tape's buffer overran).
        for text in ["[0,0,0", "[[[[[[", "[0,0,0,0,0,0,0,0", #"{"id":[0,0,0,0"#, #"{"a":{"b":{"c":[[[["#, "[1", "["] {
            Self.expectAgreement(Line.self, text, fast: false)
            Self.expectAgreement([[Int]].self, text, fast: false)
        }
        // Many keys: checked for duplicates by sorting past 16, so a crafted object with tens of
        // thousands of keys costs n log n, not n².
        let forty = (0..<40).map { #""k\#($0)":\#($0)"# }
        Self.expectAgreement(Line.self, "{" + (forty + [#""id":"a""#]).joined(separator: ",") + "}", fast: true)
        Self.expectAgreement(Line.self, "{" + (forty + [#""id":"a""#, #""k7":1"#]).joined(separator: ",") + "}", fast: false)
        Self.expectAgreement(Line.self, "{" + ([#""k39":0"#] + forty + [#""id":"a""#]).joined(separator: ",") + "}", fast: false)
        let many = (0..<50_000).map { #""k\#($0)":0"# }
        Self.expectAgreement(Line.self, "{" + (many + [#""id":"a""#]).joined(separator: ",") + "}", fast: true)
        // Bytes that are not UTF-8, read and unread.
        Self.expectAgreement(Line.self, Array(#"{"id":""#.utf8) + [0xFF] + Array(#""}"#.utf8))
        Self.expectAgreement(Line.self, Array(#"{"id":"a","x":""#.utf8) + [0xC3] + Array(#""}"#.utf8))
        Self.expectAgreement(Line.self, Array(#"{"id":""#.utf8) + [0xED, 0xA0, 0x80] + Array(#""}"#.utf8))
        Self.expectAgreement(Line.self, Array(#"{"id":""#.utf8) + [0xC3, 0xA9] + Array(#""}"#.utf8))
        // UTF-16 and UTF-32, which Foundation detects.
        Self.expectAgreement(Line.self, Array(#"{"id":"a"}"#.data(using: .utf16)!))
        Self.expectAgreement(Line.self, Array(#"{"id":"a"}"#.data(using: .utf32)!))

        // Enums: Foundation ignores keys that name no case, and wants one that does.
        let shapes: [(String, Bool?)] = [
            (#"{"none":{}}"#, true),
            (#"{"none":{"x":1}}"#, true),
            (#"{"none":[]}"#, false),
            (#"{"none":{},"zzz":1}"#, false),
            (#"{"none":{},"default":{}}"#, false),
            (#"{"zzz":{}}"#, false),
            (#"{}"#, false),
            (#"{"labelled":{"name":"x","count":1}}"#, true),
            (#"{"labelled":{"count":1,"name":"x","count":2}}"#, false),
            (#"{"labelled":{"name":"x"}}"#, false),
            (#"{"unlabelled":{"_0":1,"_1":"a"}}"#, true),
            (#"{"mixed":{"_0":1,"label":null}}"#, true),
            (#"{"mixed":{"_0":1,"_2":null,"label":"x"}}"#, true),
            (#"{"nested":{"_0":{"nested":{"_0":null}}}}"#, true),
            (#"{"nested":{}}"#, true),
            (#"{"default":{}}"#, true),
            (#""none""#, false),
            (#"{"\u006eone":{}}"#, false),
        ]
        for (text, fast) in shapes { Self.expectAgreement(Shape.self, text, fast: fast) }
        for text in [#""one""#, #""three""#, "1", #""ONE""#] { Self.expectAgreement(Raw.self, text) }
        for text in ["1", "300", "2", #""1""#, "1.0"] { Self.expectAgreement(Level.self, text) }

        // Depth: at, around and far past the readers' and Foundation's limits.
        for depth in [1, 255, 256, 257, 511, 512, 513, 5_000] {
            let nested = String(repeating: #"{"nested":{"_0":"#, count: depth) + #"{"none":{}}"# + String(repeating: "}}", count: depth)
            Self.expectAgreement(Shape.self, nested)
            Self.expectAgreement([[Int]].self, String(repeating: "[", count: depth) + String(repeating: "]", count: depth))
        }

        // UUIDs and dates, spelled canonically and otherwise.
        for text in [#""E621E1F8-C36C-495A-93FC-0C247A3E6E5F""#, #""e621e1f8-c36c-495a-93fc-0c247a3e6e5f""#,
                     #""E621E1F8C36C495A93FC0C247A3E6E5F""#, #""{E621E1F8-C36C-495A-93FC-0C247A3E6E5F}""#,
                     #""E621E1F8-C36C-495A-93FC-0C247A3E6E5G""#, #""E621E1F8-C36C-495A-93FC+0C247A3E6E5F""#,
                     #"" 621E1F8-C36C-495A-93FC-0C247A3E6E5F""#, #""0x21E1F8-C36C-495A-93FC-0C247A3E6E5F""#, #""""#, "1"] {
            Self.expectAgreement([UUID].self, "[\(text)]")
        }
        Self.expectAgreement([UUID].self, #"["e621e1f8-c36c-495a-93fc-0c247a3e6e5f"]"#, fast: true)
        for text in ["0", "-1.5", "812345678.123456", #""2020-01-01""#, "1e400"] { Self.expectAgreement([Date].self, "[\(text)]") }
        for text in [#""AQ==""#, #""AQ""#, #"" AQ==""#, "1"] { Self.expectAgreement([Data].self, "[\(text)]") }
        for text in [#""https://example.com""#, #""""#, #""a b""#] { Self.expectAgreement([URL].self, "[\(text)]") }
        for text in ["true", "false", "1", "null", #""true""#] { Self.expectAgreement([Bool].self, "[\(text)]") }
        for text in ["null", "[null]", "[1,null]", "[[null]]"] { Self.expectAgreement([Int?].self, text) }
    }

    @BinaryCodable
    struct Line: Codable, Equatable {
        var id: String
        var note: String?
    }

    @Test("mutated payloads: every flip, cut, insertion and swapped number gives Foundation's value or error")
    func mutations() async throws {
        let codec = JSONPayloadCodec()
        var seeds: [[UInt8]] = []
        for dispatched in await Shop.sessionActions(count: 60, seed: 3) { seeds.append(Array(try codec.encode(dispatched.action))) }
        for dispatched in await Todo.sessionActions(count: 60, seed: 3) { seeds.append(Array(try codec.encode(dispatched.action))) }
        let numbers = ["0", "-0", "1e400", "9223372036854775808", "-9223372036854775809", "1.0", "4.9e-324", "18446744073709551616", "\"1\"", "null", "[]", "{}"]
        let inserts: [[UInt8]] = [[0x2C], [0x22], [0x7B], [0x7D], [0x5B], [0x5D], [0x5C], [0x00], [0xFF], [0x20], Array("null".utf8), [0x3A]]
        var random = SeededRandom(seed: 7)
        var fast = 0
        for round in 0..<12_000 {
            var bytes = seeds[Int(random.next() % UInt64(seeds.count))]
            let position = Int(random.next() % UInt64(bytes.count))
            switch round % 5 {
            case 0: bytes[position] ^= UInt8(1 << (random.next() % 8))
            case 1: bytes.removeSubrange(position..<min(bytes.count, position + Int(random.next() % 4) + 1))
            case 2: bytes.insert(contentsOf: inserts[Int(random.next() % UInt64(inserts.count))], at: position)
            case 3: bytes[position] = UInt8(truncatingIfNeeded: random.next())
            default:
                // A number (or the first digit run after the position) swapped for an edge.
                if let start = bytes[position...].firstIndex(where: { (0x30...0x39).contains($0) }) {
                    let end = bytes[start...].firstIndex(where: { !(0x30...0x39).contains($0) && $0 != 0x2E && $0 != 0x65 && $0 != 0x2D }) ?? bytes.count
                    bytes.replaceSubrange(start..<end, with: Array(numbers[Int(random.next() % UInt64(numbers.count))].utf8))
                }
            }
            fast += Self.expectAgreement(ShopAction.self, bytes) ? 1 : 0
            fast += Self.expectAgreement(TodoAction.self, bytes) ? 1 : 0
        }
        // Some mutations leave a payload the readers still take (a changed digit, say).
        #expect(fast > 100)
    }
}
