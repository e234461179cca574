import Foundation
import RewindTestSupport
import Testing

/// The `@BinaryCodable` macro's expansions, as the compiler makes them: each source is
/// type-checked by `swiftc` against the `RewindCoding` module this build compiled, with the
/// macro's plugin executable from the same build, and the expansion the compiler dumps is
/// compared with the one expected — which also proves the expansion compiles.
///
/// Through the compiler rather than swift-syntax's `assertMacroExpansion`: a test target that
/// links the macro's module is built for the host, as the macro is, and took the whole package
/// and its dependencies into a second build beside the tools' (and then, in a package of its
/// own, swift-syntax a second time: CI's build step took 583 s with it, 469–477 s without).
@Suite("@BinaryCodable expansion")
struct BinaryCodableExpansionTests {
    /// An error the compiler reported: where in the source as given, and what.
    struct Failure: Equatable, CustomStringConvertible {
        var line: Int
        var column: Int
        var message: String
        var description: String { "\(line):\(column): \(message)" }
    }

    /// What the compiler said about a source.
    struct Compiled {
        /// Each expansion it dumped, in the order it made them.
        var expansions: [String]
        /// Each error it reported.
        var errors: [Failure]
        /// Everything it printed, for a failure's message.
        var output: String
    }

    /// Type-checks `source` (with `import RewindCoding` put above it) with this build's module
    /// and macro plugin, and collects the expansions and errors the compiler printed.
    static func compile(_ source: String) async throws -> Compiled {
        let built = builtProductsDirectory
        let plugin = built.appendingPathComponent("RewindMacros-tool").path
        try #require(FileManager.default.isExecutableFile(atPath: plugin), "the macro's plugin executable was not built at \(plugin)")
        // SwiftPM 6 keeps the modules in Modules/, older ones beside the products. Only one of
        // them: the products' folder also holds the module maps of the host's builds, which
        // redefine the target's C modules.
        let modules = built.appendingPathComponent("Modules").path
        let folder = try TemporaryDirectory()
        let file = folder.file("Source.swift")
        try ("import RewindCoding\n" + source + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        var arguments = ["swiftc", "-typecheck", "-diagnostic-style", "llvm"]
        arguments += ["-I", FileManager.default.fileExists(atPath: modules) ? modules : built.path]
        arguments += ["-load-plugin-executable", plugin + "#RewindMacros", "-Xfrontend", "-dump-macro-expansions", file]
        #if canImport(Darwin)
        // xcrun finds the SDK.
        let output = try await run("/usr/bin/xcrun", arguments, timeout: 300)
        #else
        let output = try await run("/usr/bin/env", arguments, timeout: 300)
        #endif
        let text = output.standardError + output.standardOutput
        let lines = text.components(separatedBy: "\n")
        var expansions: [String] = []
        var errors: [Failure] = []
        let rule = String(repeating: "-", count: 30)
        var index = 0
        while index < lines.count {
            let line = lines[index]
            // An expansion: its buffer's name, a rule, the code, a rule.
            if line.hasPrefix("@__swiftmacro_"), index + 1 < lines.count, lines[index + 1] == rule,
               let end = lines[(index + 2)...].firstIndex(of: rule) {
                expansions.append(lines[(index + 2)..<end].joined(separator: "\n"))
                index = end + 1
                continue
            }
            // An error: Source.swift:LINE:COLUMN: error: MESSAGE (from macro 'BinaryCodable');
            // one anywhere else (a module that does not load) is kept whole, at line 0.
            if let range = line.range(of: ": error: ") {
                let place = line.hasPrefix(file + ":")
                    ? line[line.index(line.startIndex, offsetBy: file.count + 1)..<range.lowerBound].split(separator: ":") : []
                let message = line[range.upperBound...].replacingOccurrences(of: " (from macro 'BinaryCodable')", with: "")
                if place.count == 2, let row = Int(place[0]), let column = Int(place[1]) {
                    // Less the import line put above the source.
                    errors.append(Failure(line: row - 1, column: column, message: message))
                } else {
                    errors.append(Failure(line: 0, column: 0, message: line))
                }
            }
            index += 1
        }
        // A source that should compile, and did not, says so in its errors; one that compiled
        // printed no error.
        #expect(errors.isEmpty == (output.status == 0 && !output.signaled), "swiftc exited \(output.status) with errors \(errors):\n\(text)")
        return Compiled(expansions: expansions, errors: errors, output: text)
    }

    /// Expects `source` to compile, with exactly one expansion, `expanded`.
    static func expect(_ source: String, expands expanded: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let compiled = try await compile(source)
        #expect(compiled.errors.isEmpty, "\(compiled.output)", sourceLocation: sourceLocation)
        #expect(compiled.expansions == [expanded], "\(compiled.output)", sourceLocation: sourceLocation)
    }

    @Test("an enum: the case is the key, labels (or _0, _1) key the values, optionals are left out when nil; the case path follows a first unlabelled value")
    func enumExpansion() async throws {
        try await Self.expect(
            """
            @BinaryCodable
            public enum CartAction: Codable {
                case add(productID: String, quantity: Int?)
                case pair(Int, String)
                case clear
            }
            """,
            expands: """
            extension CartAction: RewindCoding.BinaryCodable {
                public init(binary reader: inout RewindCoding.BinaryReader) throws {
                    var (choice, values) = try reader.enumCase(of: Self.self)
                    if reader.isCase(choice, "add") {
                        self = .add(productID: try reader.decode(forKey: "productID", in: &values), quantity: try reader.decodeIfPresent(forKey: "quantity", in: &values))
                    } else if reader.isCase(choice, "pair") {
                        self = .pair(try reader.decode(forKey: "_0", in: &values), try reader.decode(forKey: "_1", in: &values))
                    } else if reader.isCase(choice, "clear") {
                        self = .clear
                    } else {
                        throw reader.unknownCase(choice, of: Self.self)
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

                public func encode(json writer: inout RewindCoding.JSONWriter) throws {
                    var object = writer.object()
                    switch self {
                    case let .add(value0, value1):
                        var values = writer.nestedObject(member: "\\"add\\":", in: &object)
                        try writer.encode(value0, member: "\\"productID\\":", in: &values)
                        try writer.encodeIfPresent(value1, member: "\\"quantity\\":", in: &values)
                        writer.close(values)
                    case let .pair(value0, value1):
                        var values = writer.nestedObject(member: "\\"pair\\":", in: &object)
                        try writer.encode(value0, member: "\\"_0\\":", in: &values)
                        try writer.encode(value1, member: "\\"_1\\":", in: &values)
                        writer.close(values)
                    case .clear:
                        let values = writer.nestedObject(member: "\\"clear\\":", in: &object)
                        writer.close(values)
                    }
                    writer.close(object)
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

    @Test("a struct: stored properties in order (in JSON, in order of their keys); computed and static ones skipped; a constant with a value is written, not read")
    func structExpansion() async throws {
        try await Self.expect(
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

                func encode(json writer: inout RewindCoding.JSONWriter) throws {
                    var object = writer.object()
                    try writer.encode(self.id, member: "\\"id\\":", in: &object)
                    try writer.encode(self.kind, member: "\\"kind\\":", in: &object)
                    try writer.encodeIfPresent(self.note, member: "\\"note\\":", in: &object)
                    writer.close(object)
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
    func rawValueExpansion() async throws {
        try await Self.expect(
            """
            @BinaryCodable
            enum Filter: String, Codable {
                case all, done
            }
            """,
            expands: """
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

                func encode(json writer: inout RewindCoding.JSONWriter) throws {
                    try rawValue.encode(json: &writer)
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
    @Test("types whose Codable is not the synthesized one, classes and generic types are refused with a message, at the attribute")
    func refusals() async throws {
        let refused = [
            ("struct A: Codable {\n    var x: Int\n    enum CodingKeys: String, CodingKey {\n        case x = \"y\"\n    }\n}",
             "@BinaryCodable mirrors synthesized Codable; this type declares its own CodingKeys"),
            ("struct B: Codable {\n    var x: Int\n    init(from decoder: any Decoder) throws {\n        x = 0\n    }\n}",
             "@BinaryCodable mirrors synthesized Codable; this type declares its own init(from:)"),
            ("final class C: Codable {\n    var x = 0\n}", "@BinaryCodable applies to structs and enums"),
            ("struct D<T: Codable>: Codable {\n    var x: T\n}", "@BinaryCodable does not support generic types yet"),
        ]
        // One source, the four types one after the other: each refusal at its own attribute.
        var source = ""
        var expected: [Failure] = []
        for (body, message) in refused {
            expected.append(Failure(line: source.components(separatedBy: "\n").count, column: 1, message: message))
            source += "@BinaryCodable\n" + body + "\n"
        }
        let compiled = try await Self.compile(source)
        #expect(compiled.expansions.isEmpty, "\(compiled.output)")
        #expect(compiled.errors == expected, "\(compiled.output)")
    }
}
