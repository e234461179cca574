import Foundation
import Rewind
import RewindCoding
import RewindExamples
import Testing

/// The JSON codec writes `@BinaryCodable` types with generated code (`encode(json:)`), and hands
/// a value it is unsure of to its `Codable` encoder. The promise: Foundation's bytes
/// (`JSONEncoder`, `.sortedKeys`) for every value, and Foundation's error for every value it
/// refuses. Each test writes with the generated code alone (no fallback to hide behind) and
/// compares with Foundation itself.
@Suite("JSON codec's generated writers")
struct JSONWriterTests {
    static let foundation: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    /// The bytes the generated code writes, with no fallback: an unsure writer fails the test.
    static func generated<T: BinaryCodable>(_ value: T) throws -> String {
        var writer = JSONWriter(codable: SortedJSONEncoder())
        try value.encode(json: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    static func expectFoundationBytes<T: BinaryCodable>(
        _ value: T, _ comment: @autoclosure () -> String = "", sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let foundation = String(decoding: try Self.foundation.encode(value), as: UTF8.self)
        #expect(try generated(value) == foundation, "\(comment())", sourceLocation: sourceLocation)
        // The codec's way, one encoder for a run of values.
        let codec = String(decoding: try JSONPayloadCodec().encoder(for: T.self)(value), as: UTF8.self)
        #expect(codec == foundation, "\(comment()), through the codec", sourceLocation: sourceLocation)
    }

    @Test("the example apps' sessions: every action, and the products and discounts in them, written by generated code alone into Foundation's bytes")
    func exampleSessions() async throws {
        let batch = JSONPayloadCodec().encoder(for: ShopAction.self)
        for (index, dispatched) in await Shop.sessionActions(count: 3_000, seed: 12).enumerated() {
            let foundation = try Self.foundation.encode(dispatched.action)
            #expect(try Self.generated(dispatched.action) == String(decoding: foundation, as: UTF8.self), "shop action \(index)")
            #expect(try batch(dispatched.action) == foundation, "shop action \(index), batch encoder")
        }
        var state = ShopState()
        for dispatched in await Shop.sessionActions(count: 500, seed: 13) { Shop.reducer(&state, dispatched.action) }
        try Self.expectFoundationBytes(state.catalogue.products)
        try Self.expectFoundationBytes(state.catalogue.discounts)
        for dispatched in await Todo.sessionActions(count: 1_000, seed: 6) {
            try Self.expectFoundationBytes(dispatched.action)
        }
        try Self.expectFoundationBytes(TodoFilter.allCases)
    }

    @Test("every standard type at its edges: integers, doubles, floats, strings with every escape, dates, UUIDs, data, URLs, optionals and lists")
    func everything() throws {
        try Self.expectFoundationBytes(JSONReaderTests.Everything())
        var random = SeededRandom(seed: 21)
        // Every ASCII byte (controls, quotes, slashes, backslashes), and non-ASCII of each length.
        let alphabet = (0..<0x80).map { String(UnicodeScalar(UInt8($0))) } + ["é", "€", "😀", "\u{2028}", "\u{FEFF}", "e\u{301}"]
        func text() -> String { (0..<random.int(in: 0...12)).map { _ in random.element(of: alphabet)! }.joined() }
        func double() -> Double {
            while true {
                let candidate = Double(bitPattern: random.next())
                if candidate.isFinite { return candidate }
            }
        }
        for round in 0..<300 {
            var value = JSONReaderTests.Everything()
            value.text = text()
            value.optional = random.int(below: 2) == 0 ? nil : Int(truncatingIfNeeded: random.next())
            value.nestedOptional = [nil, .some(nil), .some(random.int(in: -5...5))][random.int(below: 3)]
            value.big = (0..<random.int(in: 0...4)).map { _ in Int64(bitPattern: random.next()) }
            value.unsigned = random.next() >> UInt64(random.int(below: 64))
            value.small = [Int8(truncatingIfNeeded: random.next())]
            value.int32 = Int32(truncatingIfNeeded: random.next())
            value.date = Date(timeIntervalSinceReferenceDate: double())
            value.uuid = UUID()
            value.data = Data((0..<random.int(in: 0...40)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
            value.doubles = (0..<random.int(in: 0...6)).map { _ in double() }
            value.float = Float(bitPattern: UInt32(truncatingIfNeeded: random.next()))
            if !value.float.isFinite { value.float = 0.5 }
            value.arrays = [[text(), nil], []]
            value.dictionary = [text(): round]
            value.dictionary[text()] = -round
            value.plain = JSONReaderTests.Plain(tags: [text(), text()])
            try Self.expectFoundationBytes(value, "round \(round)")
        }
    }

    @BinaryCodable
    struct Unsorted: Codable {
        var zeta = 1
        var alpha = "a"
        var Beta = true
        var _under: Int? = 3
        var émigré = "é"
        var `default` = 0.5
        /// A raw identifier: its key holds a slash, which JSON escapes.
        var `a/b c` = 2
        /// A quote followed by a combining mark: one `Character`, escaped scalar by scalar.
        var `q"́x` = 3
        var a = [Order.move(to: 1, from: 2, by: nil), .move(to: 3, from: 4, by: 5), .many(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11), .none]
    }

    @BinaryCodable
    enum Order: Codable {
        case move(to: Int, from: Int, by: Int?)
        case many(Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int)
        case none
    }

    @Test("members in Foundation's order, keys escaped: fields and labels declared out of order, upper case, underscores, non-ASCII, a raw identifier, `_10` before `_2`")
    func keyOrder() throws {
        try Self.expectFoundationBytes(Unsorted())
        try Self.expectFoundationBytes([Unsorted(), Unsorted()])
        try Self.expectFoundationBytes(Order.many(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12))
    }

    /// Encodes nothing: in a container, Foundation writes `{}`.
    struct Nothing: Codable {
        func encode(to encoder: any Encoder) throws {}
        init() {}
        init(from decoder: any Decoder) throws {}
    }

    /// A `Codable` value with containers of its own.
    struct HandWritten: Codable {
        enum Keys: CodingKey { case b, a }
        init() {}
        init(from decoder: any Decoder) throws {}
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode([1.5, 2], forKey: .b)
            var list = container.nestedUnkeyedContainer(forKey: .a)
            try list.encodeNil()
            try list.encode("/")
        }
    }

    @BinaryCodable
    struct WithCodableFields: Codable {
        var dictionary: [String: [Int]] = ["b": [2], "a": [], "é": [1]]
        var intKeys: [Int: String] = [3: "x", -1: "y"]
        var amount = Decimal(string: "12.50")!
        var nothing = Nothing()
        var handWritten = HandWritten()
        var optionalNothing: Nothing? = Nothing()
        var list = [HandWritten(), HandWritten()]
        var large = Dictionary(uniqueKeysWithValues: (0..<5_000).map { ("key \($0)", [$0]) })
    }

    @Test("fields without generated code are written by the codec's Codable encoder into the same bytes: dictionaries, decimals, hand-written and empty encodings, large values")
    func codableFields() throws {
        try Self.expectFoundationBytes(WithCodableFields())
        var small = WithCodableFields()
        small.large = [:]
        small.optionalNothing = nil
        try Self.expectFoundationBytes(small)
    }

    @BinaryCodable
    struct Prices: Codable {
        var name = "p"
        var orders: [Order] = []
        var prices: [Double] = []
        var at = Date(timeIntervalSinceReferenceDate: 0)
        var float: Float?
    }

    struct Refusing: Codable {
        struct Refusal: Error, Equatable { var reason: String }
        init() {}
        init(from decoder: any Decoder) throws {}
        func encode(to encoder: any Encoder) throws { throw Refusal(reason: "no") }
    }

    @BinaryCodable
    struct WithRefusing: Codable {
        var first = 1
        var refusing = Refusing()
    }

    /// The coding path of the error Foundation throws for `value`, and the codec's.
    static func refusalPaths<T: Encodable>(_ value: T, codec encode: (T) throws -> Data) -> (ours: [String]?, foundation: [String]?) {
        func path(_ body: () throws -> Data) -> [String]? {
            do {
                _ = try body()
                return nil
            } catch let EncodingError.invalidValue(_, context) {
                return context.codingPath.map(\.stringValue)
            } catch {
                return ["not an EncodingError: \(error)"]
            }
        }
        return (path { try encode(value) }, path { try foundation.encode(value) })
    }

    @Test("what Foundation refuses, the codec refuses with Foundation's error and coding path; a field's own error comes through; the batch goes on")
    func refusals() throws {
        let batch = JSONPayloadCodec().encoder(for: Prices.self)
        var values: [Prices] = []
        for bad in [Double.nan, .infinity, -.infinity] {
            values.append(Prices(prices: [1, bad]))
            values.append(Prices(at: Date(timeIntervalSinceReferenceDate: bad)))
            values.append(Prices(float: Float(bad)))
        }
        for value in values {
            var writer = JSONWriter(codable: SortedJSONEncoder())
            #expect(throws: JSONWriter.Unsure.self) { try value.encode(json: &writer) }
            let paths = Self.refusalPaths(value) { try batch($0) }
            #expect(paths.foundation != nil)
            #expect(paths.ours == paths.foundation)
        }
        let next = Prices(orders: [.none], prices: [0.25])
        #expect(try batch(next) == Self.foundation.encode(next))

        #expect(throws: Refusing.Refusal(reason: "no")) { try JSONPayloadCodec().encode(WithRefusing()) }
        #expect(throws: Refusing.Refusal(reason: "no")) { try Self.foundation.encode(WithRefusing()) }

        // A type conformed by hand has no generated writer: at the top level, what encodes
        // nothing is refused, as Foundation refuses it; in a container it is `{}`.
        #expect(throws: EncodingError.self) { try Self.foundation.encode(HandConformed()) }
        #expect(throws: EncodingError.self) { try JSONPayloadCodec().encode(HandConformed()) }
        try Self.expectFoundationBytes([HandConformed(), HandConformed()])
    }

    /// `BinaryCodable` by hand, with the protocol's default JSON writer (its `Codable`), which
    /// encodes nothing.
    struct HandConformed: BinaryCodable {
        init() {}
        init(from decoder: any Decoder) throws {}
        func encode(to encoder: any Encoder) throws {}
        init(binary reader: inout BinaryReader) throws {}
        func encode(binary writer: inout BinaryWriter) throws {}
    }
}
