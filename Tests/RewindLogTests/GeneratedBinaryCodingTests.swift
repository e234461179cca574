import Foundation
import Rewind
import RewindCoding
@testable import RewindCodingCore
import RewindExamples
@testable import RewindLogCore
@testable import RewindSQLite
import RewindTestSupport
import Testing

@Suite("Generated binary coding (@BinaryCodable)")
struct GeneratedBinaryCodingTests {
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

    /// Not annotated: reached from generated code through `Codable`.
    struct Plain: Codable, Equatable { var tags: Set<String> }

    @BinaryCodable
    struct Everything: Codable, Equatable {
        var text = "naïve café — 日本語 🎉 \u{0}"
        var long = String(repeating: "x", count: 300)
        var optional: Int?
        var nestedOptional: Int??
        var unwrapped: String!
        var `default` = true
        var flags = [true, false]
        var big: [Int64] = [.min, .max, 0, -1]
        var unsigned: UInt64 = .max
        var small: [Int8] = [.min, .max]
        var sizes: (UInt8, UInt16, UInt32, UInt) { (0, 0, 0, 0) }
        var date = Date(timeIntervalSinceReferenceDate: 812_345_678.123456)
        var uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        var data = Data([0, 1, 2, 255])
        var url = URL(string: "https://example.com/a?b=c")!
        var doubles: [Double] = [0, -0.0, .infinity, -.infinity, .pi, .leastNonzeroMagnitude]
        var float: Float = 1.5
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
        var observed = 0 { didSet {} }
    }

    static func hasGeneratedCoding(_ type: Any.Type) -> Bool { type is any BinaryCodable.Type }

    /// Generated code and `Codable` write the same bytes, and each reads what the other wrote.
    static func expectAgreement<T: Codable & Equatable>(_ value: T, _ codec: BinaryPayloadCodec, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let generated = try codec.encode(value)
        let codable = try codec.encodeWithCodable(value)
        #expect(generated == codable, "generated \(generated.count) bytes, Codable \(codable.count)", sourceLocation: sourceLocation)
        #expect(try codec.decode(T.self, from: codable) == value, sourceLocation: sourceLocation)
        #expect(try codec.decodeWithCodable(T.self, from: generated) == value, sourceLocation: sourceLocation)
    }

    @Test("the example apps' actions: generated code writes Codable's bytes, and each reads the other's")
    func exampleApps() async throws {
        let codec = BinaryPayloadCodec()
        for dispatched in await Shop.sessionActions(count: 1_500, seed: 5) {
            try Self.expectAgreement(dispatched.action, codec)
        }
        for dispatched in await Todo.sessionActions(count: 1_500, seed: 5) {
            try Self.expectAgreement(dispatched.action, codec)
        }
        // Agreement alone would hold without the macro too: check the generated path is the one taken.
        #expect(Self.hasGeneratedCoding(ShopAction.self) && Self.hasGeneratedCoding(TodoAction.self))
        #expect(!Self.hasGeneratedCoding(Plain.self))
    }

    /// Not annotated: a case path through it is left to the `Codable`-based reader.
    enum PlainChoice: Codable { case left(Int), right }

    @BinaryCodable
    enum Outer: Codable {
        case level(Level)
        case shape(Shape, Int)
        case plain(PlainChoice)
        case labelled(shape: Shape)
    }

    @Test("generated case paths are the ones the log's Codable-based reader finds, for every example action")
    func casePaths() async throws {
        var checked = 0
        func expectSamePath<T: BinaryCodable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(value.generatedCasePath == CasePathEncoder.path(of: value) ?? ActionCaseName.reflected(value), sourceLocation: sourceLocation)
            checked += 1
        }
        for dispatched in await Shop.sessionActions(count: 1_500, seed: 6) { expectSamePath(dispatched.action) }
        for dispatched in await Todo.sessionActions(count: 1_500, seed: 6) { expectSamePath(dispatched.action) }
        for shape in Everything().shapes { expectSamePath(shape) }
        for outer in [Outer.level(.high), .shape(.labelled(name: "a", count: 1), 2), .labelled(shape: .none)] { expectSamePath(outer) }
        #expect(Outer.shape(.nested(nil), 1).generatedCasePath == "shape.nested")
        #expect(Outer.shape(.nested(.nested(Shape.none)), 1).generatedCasePath == "shape.nested.nested.none")
        #expect(Level.high.generatedCasePath == "high")
        // A step without generated code: no generated path, and the log falls back.
        #expect(Outer.plain(.left(1)).generatedCasePath == nil)
        #expect(ActionCaseName.of(Outer.plain(.left(1))) == "plain.left")
        #expect(checked == 3_010)
    }

    @Test("edge cases agree byte for byte: optionals, implicitly unwrapped, observed, raw values, Codable-only fields, lengths past 127")
    func edgeCases() throws {
        let codec = BinaryPayloadCodec()
        var value = Everything()
        try Self.expectAgreement(value, codec)
        value.optional = 5
        value.nestedOptional = .some(nil)
        value.unwrapped = "here"
        value.plains = nil
        try Self.expectAgreement(value, codec)
        value.nestedOptional = .some(.some(-9))
        try Self.expectAgreement(value, codec)
        for shape in value.shapes { try Self.expectAgreement(shape, codec) }
        try Self.expectAgreement(Empty(), codec)
        try Self.expectAgreement(Level.low, codec)
    }

    struct Original: Codable { var first: String; var retired: Int; var second: [Int]; var third: Bool? }

    @BinaryCodable
    struct Reordered: Codable, Equatable { var third: Bool?; var second: [Int]; var first: String; var added: String? }

    @Test("keys in another order, unknown keys and new optional fields read as with Codable")
    func schemaEvolution() throws {
        let codec = BinaryPayloadCodec()
        let old = try codec.encodeWithCodable(Original(first: "a", retired: 42, second: [1, 2], third: true))
        #expect(try codec.decode(Reordered.self, from: old) == Reordered(third: true, second: [1, 2], first: "a", added: nil))
        #expect(try codec.decode(Reordered.self, from: old) == codec.decodeWithCodable(Reordered.self, from: old))
    }

    @Test("a missing field and an unknown case are errors that name where")
    func errors() throws {
        let codec = BinaryPayloadCodec()
        // `.labelled` without its count: written through a type that lacks the field.
        struct LabelledWithoutCount: Codable { var name: String }
        struct Wrapper: Codable { var labelled: LabelledWithoutCount }
        let missing = try codec.encodeWithCodable(Wrapper(labelled: .init(name: "x")))
        let error = #expect(throws: DecodingError.self) { try codec.decode(Shape.self, from: missing) }
        guard case let .keyNotFound(key, context)? = error else { Issue.record("unexpected \(String(describing: error))"); return }
        #expect(key.stringValue == "count")
        #expect(context.codingPath.map(\.stringValue) == ["labelled"])

        struct Unknown: Codable { var circle: Empty }
        let unknown = try codec.encodeWithCodable(Unknown(circle: Empty()))
        let caseError = #expect(throws: DecodingError.self) { try codec.decode(Shape.self, from: unknown) }
        #expect("\(String(describing: caseError))".contains("no case 'circle'"))

        let badRaw = try codec.encodeWithCodable(2)
        #expect(throws: DecodingError.self) { try codec.decode(Level.self, from: badRaw) }

        // A deep field's error carries its whole path: shapes[1].labelled.count.
        struct BadCount: Codable { var name: String; var count: String }
        struct BadShape: Codable { var labelled: BadCount }
        struct BadHolder: Codable { var shapes: [BadShape] }
        let deep = try codec.encodeWithCodable(BadHolder(shapes: [.init(labelled: .init(name: "a", count: "1")), .init(labelled: .init(name: "b", count: "x"))]))
        let deepError = #expect(throws: DecodingError.self) { try codec.decode(HolderOfShapes.self, from: deep) }
        guard case let .dataCorrupted(deepContext)? = deepError else { Issue.record("unexpected \(String(describing: deepError))"); return }
        #expect(deepContext.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue } == ["shapes", "0", "labelled", "count"])
    }

    @BinaryCodable
    struct HolderOfShapes: Codable, Equatable { var shapes: [Shape] }

    @BinaryCodable
    enum Accented: Codable, Equatable { case café(Int), cafe }

    @BinaryCodable
    struct Spelled: Codable, Equatable { var K: Int; var café: String; var accented: [Accented] }

    @Test("a log's names are keys as strings are: another spelling of the same string reads as with Codable")
    func canonicalSpellings() throws {
        // The log's names and the type's keys are compared byte for byte when both are ASCII;
        // otherwise as strings, where a Kelvin sign is a K and an e with a combining accent an é.
        #expect("\u{212A}" == "K")
        #expect("cafe\u{301}" == "café")
        let value = Spelled(K: 7, café: "x", accented: [.café(1), .cafe])
        let writing = BinaryPayloadCodec()
        let bytes = try writing.encode(value)
        let respelled = writing.unpersistedSymbols().map { symbol in
            CodecSymbol(id: symbol.id, name: ["K": "\u{212A}", "café": "cafe\u{301}"][symbol.name] ?? symbol.name)
        }
        // By bytes: as strings, a name left as it was would pass for the new spelling.
        let spellings = Set(respelled.map { Array($0.name.utf8) })
        #expect(spellings.contains(Array("\u{212A}".utf8)) && spellings.contains(Array("cafe\u{301}".utf8)))
        #expect(!spellings.contains(Array("K".utf8)) && !spellings.contains(Array("café".utf8)))
        let reading = BinaryPayloadCodec()
        try reading.learn(respelled)
        #expect(try reading.decode(Spelled.self, from: bytes) == value)
        #expect(try reading.decodeWithCodable(Spelled.self, from: bytes) == value)
        // The plain `cafe` case stays apart from `café` under either spelling.
        #expect(try reading.decode([Accented].self, from: writing.encode([Accented.cafe])) == [.cafe])
    }

    /// Not annotated, and refuses to encode when told to: a failure in the middle of a value.
    struct Refusing: Codable, Equatable {
        var refuses: Bool
        init(refuses: Bool) { self.refuses = refuses }
        init(from decoder: any Decoder) throws { refuses = try decoder.singleValueContainer().decode(Bool.self) }
        func encode(to encoder: any Encoder) throws {
            if refuses { throw EncodingError.invalidValue(refuses, .init(codingPath: [], debugDescription: "refused")) }
            var container = encoder.singleValueContainer()
            try container.encode(refuses)
        }
    }

    @BinaryCodable
    struct Holder: Codable, Equatable { var name: String; var inner: Refusing; var many: [Int] }

    @Test("one encoder over a run of values writes each as a fresh one would, after a value that failed halfway too")
    func encoderRuns() throws {
        let codec = BinaryPayloadCodec()
        let encode = codec.encoder(for: Holder.self)
        let values = [
            Holder(name: String(repeating: "long ", count: 60), inner: Refusing(refuses: false), many: Array(0..<200)),
            Holder(name: "short", inner: Refusing(refuses: true), many: [1, 2, 3]),
            Holder(name: "after", inner: Refusing(refuses: false), many: [4]),
            Holder(name: "", inner: Refusing(refuses: false), many: []),
        ]
        for value in values {
            guard !value.inner.refuses else {
                #expect(throws: EncodingError.self) { try encode(value) }
                continue
            }
            let bytes = try encode(value)
            // A fresh encoder, after the run's symbols exist: the same bytes, nothing left over.
            #expect(bytes == (try codec.encoder(for: Holder.self)(value)))
            #expect(try codec.decode(Holder.self, from: bytes) == value)
        }
    }

    @Test("random and mutated bytes make errors, never crashes")
    func fuzz() async throws {
        let codec = BinaryPayloadCodec()
        let valid = try await Shop.sessionActions(count: 300, seed: 4).map { try codec.encode($0.action) }
            + [try codec.encode(Everything()), try codec.encode(HolderOfShapes(shapes: Everything().shapes))]
        let (decoded, failed) = FuzzedPayloads.attempt(FuzzedPayloads.make(from: valid, seed: 17), with: [
            { _ = try codec.decode(ShopAction.self, from: $0) },
            { _ = try codec.decode(Everything.self, from: $0) },
            { _ = try codec.decode(HolderOfShapes.self, from: $0) },
        ])
        #expect(failed > 0)
        #expect(decoded + failed == 27_000)
    }
}
