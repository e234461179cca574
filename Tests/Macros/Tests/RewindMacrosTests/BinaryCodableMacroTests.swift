import RewindMacros
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

@Suite("@BinaryCodable expansion")
struct BinaryCodableMacroTests {
    static let macros = ["BinaryCodable": MacroSpec(type: BinaryCodableMacro.self, conformances: ["BinaryCodable"])]

    /// `assertMacroExpansion` reporting through Swift Testing.
    static func expect(_ source: String, expands expanded: String, diagnostics: [DiagnosticSpec] = [], sourceLocation: SourceLocation = #_sourceLocation) {
        assertMacroExpansion(source, expandedSource: expanded, diagnostics: diagnostics, macroSpecs: macros) { failure in
            Issue.record(Comment(rawValue: failure.message), sourceLocation: sourceLocation)
        }
    }

    @Test("an enum: the case is the key, labels (or _0, _1) key the values, optionals are left out when nil; the case path follows a first unlabelled value")
    func enumExpansion() {
        Self.expect(
            """
            @BinaryCodable
            public enum CartAction: Codable {
                case add(productID: String, quantity: Int?)
                case pair(Int, String)
                case clear
            }
            """,
            expands: """
            public enum CartAction: Codable {
                case add(productID: String, quantity: Int?)
                case pair(Int, String)
                case clear
            }

            extension CartAction: RewindCoding.BinaryCodable {
                public init(binary reader: inout RewindCoding.BinaryReader) throws {
                    var (caseName, values) = try reader.enumCase(of: Self.self)
                    switch caseName {
                    case "add":
                        self = .add(productID: try reader.decode(forKey: "productID", in: &values), quantity: try reader.decodeIfPresent(forKey: "quantity", in: &values))
                    case "pair":
                        self = .pair(try reader.decode(forKey: "_0", in: &values), try reader.decode(forKey: "_1", in: &values))
                    case "clear":
                        self = .clear
                    default:
                        throw reader.unknownCase(caseName, of: Self.self)
                    }
                }

                public init(json reader: inout RewindCoding.JSONReader) throws {
                    let choice = try reader.enumCase()
                    if reader.isCase(choice, "add") {
                        var values = try reader.values(of: choice)
                        self = .add(productID: try reader.decode(forKey: "productID", in: &values), quantity: try reader.decodeIfPresent(forKey: "quantity", in: &values))
                    } else if reader.isCase(choice, "pair") {
                        var values = try reader.values(of: choice)
                        self = .pair(try reader.decode(forKey: "_0", in: &values), try reader.decode(forKey: "_1", in: &values))
                    } else if reader.isCase(choice, "clear") {
                        _ = try reader.values(of: choice)
                        self = .clear
                    } else {
                        throw RewindCoding.JSONReader.Unsure()
                    }
                }

                public func encode(binary writer: inout RewindCoding.BinaryWriter) throws {
                    var container = writer.keyedContainer()
                    switch self {
                    case let .add(value0, value1):
                        var values = writer.nestedKeyedContainer(forKey: "add", in: &container)
                        try writer.encode(value0, forKey: "productID", in: &values)
                        try writer.encodeIfPresent(value1, forKey: "quantity", in: &values)
                        writer.close(values)
                    case let .pair(value0, value1):
                        var values = writer.nestedKeyedContainer(forKey: "pair", in: &container)
                        try writer.encode(value0, forKey: "_0", in: &values)
                        try writer.encode(value1, forKey: "_1", in: &values)
                        writer.close(values)
                    case .clear:
                        let values = writer.nestedKeyedContainer(forKey: "clear", in: &container)
                        writer.close(values)
                    }
                    writer.close(container)
                }

                public static var generatesCasePath: Bool {
                    true
                }

                public var generatedCasePath: String? {
                    switch self {
                    case .add:
                        return "add"
                    case let .pair(value0, _):
                        return RewindCoding.GeneratedCasePath.joining("pair", value0)
                    case .clear:
                        return "clear"
                    }
                }

                public static func generatedShape(_ describer: RewindCoding.TypeShapeDescriber) -> RewindCoding.TypeShape? {
                    .choice(name: describer.name(of: Self.self), cases: [
                        .init(name: "add", fields: describer.fields(["productID", "quantity"], Self.add(productID:quantity:))),
                        .init(name: "pair", fields: describer.fields(["_0", "_1"], Self.pair(_:_:))),
                        .init(name: "clear", fields: []),
                    ])
                }
            }
            """
        )
    }

    @Test("a struct: stored properties in order; computed and static ones skipped; a constant with a value is written, not read")
    func structExpansion() {
        Self.expect(
            """
            @BinaryCodable
            struct Line: Codable {
                static let zero = 0
                var id: String
                var note: String?
                let kind = 1
                var total: Int { 0 }
            }
            """,
            expands: """
            struct Line: Codable {
                static let zero = 0
                var id: String
                var note: String?
                let kind = 1
                var total: Int { 0 }
            }

            extension Line: RewindCoding.BinaryCodable {
                init(binary reader: inout RewindCoding.BinaryReader) throws {
                    var container = try reader.keyedContainer()
                    self.id = try reader.decode(forKey: "id", in: &container)
                    self.note = try reader.decodeIfPresent(forKey: "note", in: &container)
                }

                init(json reader: inout RewindCoding.JSONReader) throws {
                    var object = try reader.object()
                    self.id = try reader.decode(forKey: "id", in: &object)
                    self.note = try reader.decodeIfPresent(forKey: "note", in: &object)
                }

                func encode(binary writer: inout RewindCoding.BinaryWriter) throws {
                    var container = writer.keyedContainer()
                    try writer.encode(self.id, forKey: "id", in: &container)
                    try writer.encodeIfPresent(self.note, forKey: "note", in: &container)
                    try writer.encode(self.kind, forKey: "kind", in: &container)
                    writer.close(container)
                }

                static func generatedShape(_ describer: RewindCoding.TypeShapeDescriber) -> RewindCoding.TypeShape? {
                    .record(name: describer.name(of: Self.self), fields: [
                        describer.field("id", \\Self.id),
                        describer.field("note", \\Self.note),
                    ])
                }
            }
            """
        )
    }

    @Test("a raw-value enum codes its raw value")
    func rawValueExpansion() {
        Self.expect(
            """
            @BinaryCodable
            enum Filter: String, Codable {
                case all, done
            }
            """,
            expands: """
            enum Filter: String, Codable {
                case all, done
            }

            extension Filter: RewindCoding.BinaryCodable {
                init(binary reader: inout RewindCoding.BinaryReader) throws {
                    let rawValue = try RawValue(binary: &reader)
                    guard let value = Self(rawValue: rawValue) else {
                        throw reader.invalidRawValue(rawValue, of: Self.self)
                    }
                    self = value
                }

                init(json reader: inout RewindCoding.JSONReader) throws {
                    guard let value = Self(rawValue: try RawValue(json: &reader)) else {
                        throw RewindCoding.JSONReader.Unsure()
                    }
                    self = value
                }

                func encode(binary writer: inout RewindCoding.BinaryWriter) throws {
                    try rawValue.encode(binary: &writer)
                }

                static var generatesCasePath: Bool {
                    true
                }

                var generatedCasePath: String? {
                    String(describing: self)
                }

                static func generatedShape(_ describer: RewindCoding.TypeShapeDescriber) -> RewindCoding.TypeShape? {
                    .choice(name: describer.name(of: Self.self), cases: [
                        .init(name: String(describing: Self.all.rawValue), fields: []),
                        .init(name: String(describing: Self.done.rawValue), fields: []),
                    ])
                }
            }
            """
        )
    }

    @Test("types whose Codable is not the synthesized one, classes and generic types are refused with a message")
    func refusals() {
        for (body, message) in [
            ("struct A: Codable {\n    var x: Int\n    enum CodingKeys: String, CodingKey {\n        case x = \"y\"\n    }\n}",
             "@BinaryCodable mirrors synthesized Codable; this type declares its own CodingKeys"),
            ("struct A: Codable {\n    var x: Int\n    init(from decoder: any Decoder) throws {\n        x = 0\n    }\n}",
             "@BinaryCodable mirrors synthesized Codable; this type declares its own init(from:)"),
            ("final class A: Codable {\n    var x = 0\n}", "@BinaryCodable applies to structs and enums"),
            ("struct A<T: Codable>: Codable {\n    var x: T\n}", "@BinaryCodable does not support generic types yet"),
        ] {
            Self.expect("@BinaryCodable\n" + body, expands: body, diagnostics: [DiagnosticSpec(message: message, line: 1, column: 1)])
        }
    }
}
