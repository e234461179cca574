public import SwiftSyntax
import SwiftSyntaxBuilder
public import SwiftSyntaxMacros

/// `@BinaryCodable`: writes `init(binary:)`, `encode(binary:)`, `init(json:)` and `encode(json:)` from a
/// struct's stored properties or an enum's cases, mirroring the layout of the synthesized `Codable`
/// conformance (keys, `_0`-style labels, optionals left out when `nil`, raw values), so the
/// generated code and the binary codec's `Codable` path produce the same bytes.
public struct BinaryCodableMacro: ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        try refuseCustomCoding(in: declaration)
        let access = accessModifier(of: declaration)
        let members: String
        if let structDecl = declaration.as(StructDeclSyntax.self) {
            if structDecl.genericParameterClause != nil { throw MacroError("@BinaryCodable does not support generic types yet") }
            members = try structMembers(structDecl, access: access)
        } else if let enumDecl = declaration.as(EnumDeclSyntax.self) {
            if enumDecl.genericParameterClause != nil { throw MacroError("@BinaryCodable does not support generic types yet") }
            members = try enumMembers(enumDecl, access: access)
        } else {
            throw MacroError("@BinaryCodable applies to structs and enums")
        }
        let conformance = protocols.isEmpty ? "" : ": RewindCoding.BinaryCodable"
        let source: DeclSyntax = "extension \(type.trimmed)\(raw: conformance) {\n\(raw: members)\n}"
        return [try ExtensionDeclSyntax(validating: source.cast(ExtensionDeclSyntax.self))]
    }

    // MARK: Structs

    private struct Field {
        var name: String
        var isOptional: Bool
        var isDecoded: Bool
    }

    private static func structMembers(_ decl: StructDeclSyntax, access: String) throws -> String {
        let fields = try storedFields(of: decl)
        var decode = ["\(access)init(binary reader: inout RewindCoding.BinaryReader) throws {"]
        let decoded = fields.filter(\.isDecoded)
        if decoded.isEmpty {
            decode.append("    _ = try reader.keyedContainer()")
        } else {
            decode.append("    var container = try reader.keyedContainer()")
            for field in decoded {
                let method = field.isOptional ? "decodeIfPresent" : "decode"
                decode.append("    self.\(field.name) = try reader.\(method)(forKey: \(literal(key(field.name))), in: &container)")
            }
        }
        decode.append("}")

        var json = ["\(access)init(json reader: inout RewindCoding.JSONReader) throws {"]
        if decoded.isEmpty {
            json.append("    _ = try reader.object()")
        } else {
            json.append("    var object = try reader.object()")
            for field in decoded {
                let method = field.isOptional ? "decodeIfPresent" : "decode"
                json.append("    self.\(field.name) = try reader.\(method)(forKey: \(literal(key(field.name))), in: &object)")
            }
        }
        json.append("}")

        var encode = ["\(access)func encode(binary writer: inout RewindCoding.BinaryWriter) throws {"]
        encode.append("    \(fields.isEmpty ? "let" : "var") container = writer.keyedContainer()")
        for field in fields {
            let method = field.isOptional ? "encodeIfPresent" : "encode"
            encode.append("    try writer.\(method)(self.\(field.name), forKey: \(literal(key(field.name))), in: &container)")
        }
        encode.append("    writer.close(container)")
        encode.append("}")

        // In JSON, the fields in the order `.sortedKeys` writes them.
        var jsonEncode = ["\(access)func encode(json writer: inout RewindCoding.JSONWriter) throws {"]
        jsonEncode.append("    \(fields.isEmpty ? "let" : "var") object = writer.object()")
        for field in fields.sorted(by: { jsonOrder(key($0.name), key($1.name)) }) {
            let method = field.isOptional ? "encodeIfPresent" : "encode"
            jsonEncode.append("    try writer.\(method)(self.\(field.name), member: \(jsonMember(key(field.name))), in: &object)")
        }
        jsonEncode.append("    writer.close(object)")
        jsonEncode.append("}")
        // Each field's type comes from a key path, so a property declared without a type
        // annotation (`var count = 0`) is described by the type the compiler infers.
        let shape = shapeMember(access: access, body: [
            ".record(name: describer.name(of: Self.self), fields: [",
        ] + decoded.map { "    describer.field(\(literal(key($0.name))), \\Self.\($0.name))," } + ["])"])
        return (decode + [""] + json + [""] + encode + [""] + jsonEncode + [""] + shape).joined(separator: "\n")
    }

    /// `generatedShape(_:)`: the type's ``TypeShape``, as probing its `Codable` conformance
    /// would find it, without running any of it.
    private static func shapeMember(access: String, body: [String]) -> [String] {
        ["\(access)static func generatedShape(_ describer: RewindCoding.TypeShapeDescriber) -> RewindCoding.TypeShape? {"]
            + body.map { "    " + $0 } + ["}"]
    }

    /// The stored instance properties, in declaration order, as `Codable` synthesis sees them.
    private static func storedFields(of decl: StructDeclSyntax) throws -> [Field] {
        var fields: [Field] = []
        for member in decl.memberBlock.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            if variable.modifiers.contains(where: { ["static", "class"].contains($0.name.text) }) { continue }
            if variable.modifiers.contains(where: { $0.name.text == "lazy" }) {
                throw MacroError("@BinaryCodable does not support lazy properties")
            }
            let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
            let bindings = Array(variable.bindings)
            for (index, binding) in bindings.enumerated() {
                if let accessors = binding.accessorBlock, isComputed(accessors) { continue }
                guard let pattern = binding.pattern.as(IdentifierPatternSyntax.self) else {
                    throw MacroError("@BinaryCodable needs one name per stored property")
                }
                // `var a, b: Int?` gives both names the type written after the last one.
                let type = binding.typeAnnotation?.type
                    ?? bindings[(index + 1)...].first(where: { $0.typeAnnotation != nil && $0.initializer == nil })?.typeAnnotation?.type
                fields.append(Field(
                    name: pattern.identifier.text,
                    isOptional: type.map(isOptional) ?? false,
                    isDecoded: !(isLet && binding.initializer != nil)
                ))
            }
        }
        return fields
    }

    /// Whether an accessor block makes a computed property (observers keep it stored).
    private static func isComputed(_ block: AccessorBlockSyntax) -> Bool {
        switch block.accessors {
        case .getter: return true
        case let .accessors(list):
            return list.contains { !["willSet", "didSet"].contains($0.accessorSpecifier.text) }
        }
    }

    // MARK: Enums

    private static let rawValueTypes: Set<String> = [
        "String", "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64",
    ]

    private static func enumMembers(_ decl: EnumDeclSyntax, access: String) throws -> String {
        let cases = decl.memberBlock.members.compactMap { $0.decl.as(EnumCaseDeclSyntax.self) }.flatMap(\.elements)
        guard !cases.isEmpty else { throw MacroError("@BinaryCodable needs an enum with cases") }
        if let rawType = decl.inheritanceClause?.inheritedTypes.first?.type.trimmedDescription, rawValueTypes.contains(rawType) {
            let shape = [".choice(name: describer.name(of: Self.self), cases: ["]
                + cases.map { "    .init(name: String(describing: Self.\($0.name.text).rawValue), fields: [])," } + ["])"]
            return rawValueMembers(access: access) + "\n\n" + shapeMember(access: access, body: shape).joined(separator: "\n")
        }
        let hasValues = cases.contains { !($0.parameterClause?.parameters.isEmpty ?? true) }

        var decode = ["\(access)init(binary reader: inout RewindCoding.BinaryReader) throws {"]
        decode.append(hasValues
            ? "    var (choice, values) = try reader.enumCase(of: Self.self)"
            : "    let (choice, _) = try reader.enumCase(of: Self.self)")
        var json = ["\(access)init(json reader: inout RewindCoding.JSONReader) throws {"]
        json.append("    let choice = try reader.enumCase()")
        var encode = ["\(access)func encode(binary writer: inout RewindCoding.BinaryWriter) throws {"]
        encode.append("    var container = writer.keyedContainer()")
        encode.append("    switch self {")
        var jsonEncode = ["\(access)func encode(json writer: inout RewindCoding.JSONWriter) throws {"]
        jsonEncode.append("    var object = writer.object()")
        jsonEncode.append("    switch self {")

        for element in cases {
            let name = element.name.text
            let caseKey = literal(key(name))
            let parameters = Array(element.parameterClause?.parameters ?? [])
            // Neither reader makes the case's name a `String` to switch on: each compares the
            // key's bytes.
            decode.append("    \(decode.count == 2 ? "if" : "} else if") reader.isCase(choice, \(caseKey)) {")
            json.append("    \(json.count == 2 ? "if" : "} else if") reader.isCase(choice, \(caseKey)) {")
            guard !parameters.isEmpty else {
                decode.append("        self = .\(name)")
                json.append("        _ = try reader.values(of: choice)")
                json.append("        self = .\(name)")
                encode.append("    case .\(name):")
                encode.append("        let values = writer.nestedKeyedContainer(forKey: \(caseKey), in: &container)")
                encode.append("        writer.close(values)")
                jsonEncode.append("    case .\(name):")
                jsonEncode.append("        let values = writer.nestedObject(member: \(jsonMember(key(name))), in: &object)")
                jsonEncode.append("        writer.close(values)")
                continue
            }
            var arguments: [String] = []
            var jsonValues: [(key: String, line: String)] = []
            encode.append("    case let .\(name)(\(parameters.indices.map { "value\($0)" }.joined(separator: ", "))):")
            encode.append("        var values = writer.nestedKeyedContainer(forKey: \(caseKey), in: &container)")
            jsonEncode.append("    case let .\(name)(\(parameters.indices.map { "value\($0)" }.joined(separator: ", "))):")
            jsonEncode.append("        var values = writer.nestedObject(member: \(jsonMember(key(name))), in: &object)")
            for (index, parameter) in parameters.enumerated() {
                let label = parameter.firstName.map { key($0.text) }.flatMap { $0 == "_" ? nil : $0 }
                let fieldKey = literal(label ?? "_\(index)")
                let optional = isOptional(parameter.type)
                let read = "try reader.\(optional ? "decodeIfPresent" : "decode")(forKey: \(fieldKey), in: &values)"
                if let label = parameter.firstName?.text, label != "_" {
                    arguments.append("\(label): \(read)")
                } else {
                    arguments.append(read)
                }
                encode.append("        try writer.\(optional ? "encodeIfPresent" : "encode")(value\(index), forKey: \(fieldKey), in: &values)")
                jsonValues.append((label ?? "_\(index)", "        try writer.\(optional ? "encodeIfPresent" : "encode")(value\(index), member: \(jsonMember(label ?? "_\(index)")), in: &values)"))
            }
            // In the order of their keys, as a struct's fields.
            jsonEncode += jsonValues.sorted { jsonOrder($0.key, $1.key) }.map(\.line)
            jsonEncode.append("        writer.close(values)")
            decode.append("        self = .\(name)(\(arguments.joined(separator: ", ")))")
            json.append("        var values = try reader.values(of: choice)")
            json.append("        self = .\(name)(\(arguments.joined(separator: ", ")))")
            encode.append("        writer.close(values)")
        }
        decode.append("    } else {")
        decode.append("        throw reader.unknownCase(choice, of: Self.self)")
        decode.append("    }")
        decode.append("}")
        json.append("    } else {")
        json.append("        throw RewindCoding.JSONReader.Unsure()")
        json.append("    }")
        json.append("}")
        encode.append("    }")
        encode.append("    writer.close(container)")
        encode.append("}")
        jsonEncode.append("    }")
        jsonEncode.append("    writer.close(object)")
        jsonEncode.append("}")
        var shape = [".choice(name: describer.name(of: Self.self), cases: ["]
        for element in cases {
            let parameters = Array(element.parameterClause?.parameters ?? [])
            guard !parameters.isEmpty else {
                shape.append("    .init(name: \(literal(key(element.name.text))), fields: []),")
                continue
            }
            // The values' types come from the case's constructor, `(A, B) -> Self`, not from
            // their spelling, which may name a type not in scope at the extension.
            let labels = parameters.map { $0.firstName.map { key($0.text) } ?? "_" }
            let keys = labels.enumerated().map { index, label in literal(label == "_" ? "_\(index)" : label) }
            let constructor = "Self.\(element.name.text)(\(labels.map { $0 + ":" }.joined()))"
            shape.append("    .init(name: \(literal(key(element.name.text))), fields: describer.fields([\(keys.joined(separator: ", "))], \(constructor))),")
        }
        shape.append("])")
        return (decode + [""] + json + [""] + encode + [""] + jsonEncode + [""] + casePathMembers(cases, access: access) + [""] + shapeMember(access: access, body: shape))
            .joined(separator: "\n")
    }

    /// The case path the log shows: the case's name, then, when its first value is unlabelled,
    /// that value's own path (as the log's `Codable`-based case path reads it).
    private static func casePathMembers(_ cases: [EnumCaseElementSyntax], access: String) -> [String] {
        var lines = ["\(access)static var generatesCasePath: Bool { true }", ""]
        lines.append("\(access)var generatedCasePath: String? {")
        lines.append("    switch self {")
        for element in cases {
            let name = element.name.text
            let first = element.parameterClause?.parameters.first
            if let first, first.firstName == nil || first.firstName?.text == "_" {
                let count = element.parameterClause?.parameters.count ?? 1
                lines.append("    case let .\(name)(\((["value0"] + Array(repeating: "_", count: count - 1)).joined(separator: ", "))):")
                lines.append("        return RewindCoding.GeneratedCasePath.joining(\(literal(key(name))), value0)")
            } else {
                lines.append("    case .\(name):")
                lines.append("        return \(literal(key(name)))")
            }
        }
        lines.append("    }")
        lines.append("}")
        return lines
    }

    /// An enum with a raw type codes as its raw value, like `RawRepresentable`'s `Codable`.
    private static func rawValueMembers(access: String) -> String {
        """
        \(access)init(binary reader: inout RewindCoding.BinaryReader) throws {
            let rawValue = try RawValue(binary: &reader)
            guard let value = Self(rawValue: rawValue) else { throw reader.invalidRawValue(rawValue, of: Self.self) }
            self = value
        }

        \(access)init(json reader: inout RewindCoding.JSONReader) throws {
            guard let value = Self(rawValue: try RawValue(json: &reader)) else { throw RewindCoding.JSONReader.Unsure() }
            self = value
        }

        \(access)func encode(binary writer: inout RewindCoding.BinaryWriter) throws {
            try rawValue.encode(binary: &writer)
        }

        \(access)func encode(json writer: inout RewindCoding.JSONWriter) throws {
            try rawValue.encode(json: &writer)
        }

        \(access)static var generatesCasePath: Bool { true }

        \(access)var generatedCasePath: String? { String(describing: self) }
        """
    }

    // MARK: Shared

    /// Refuses types whose `Codable` is not the synthesized one: the bytes would differ.
    private static func refuseCustomCoding(in declaration: some DeclGroupSyntax) throws {
        for member in declaration.memberBlock.members {
            if let nested = member.decl.as(EnumDeclSyntax.self), nested.name.text == "CodingKeys" {
                throw MacroError("@BinaryCodable mirrors synthesized Codable; this type declares its own CodingKeys")
            }
            if let initializer = member.decl.as(InitializerDeclSyntax.self),
               initializer.signature.parameterClause.parameters.first?.firstName.text == "from" {
                throw MacroError("@BinaryCodable mirrors synthesized Codable; this type declares its own init(from:)")
            }
            if let function = member.decl.as(FunctionDeclSyntax.self), function.name.text == "encode",
               function.signature.parameterClause.parameters.first?.firstName.text == "to" {
                throw MacroError("@BinaryCodable mirrors synthesized Codable; this type declares its own encode(to:)")
            }
        }
    }

    /// The generated members' access: as visible as the type (public witnesses for a public type).
    private static func accessModifier(of declaration: some DeclGroupSyntax) -> String {
        for modifier in declaration.modifiers {
            switch modifier.name.text {
            case "public", "open": return "public "
            case "package": return "package "
            default: continue
            }
        }
        return ""
    }

    private static func isOptional(_ type: TypeSyntax) -> Bool {
        if type.is(OptionalTypeSyntax.self) || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return true }
        if let identifier = type.as(IdentifierTypeSyntax.self) { return identifier.name.text == "Optional" }
        if let member = type.as(MemberTypeSyntax.self) {
            return member.name.text == "Optional" && member.baseType.trimmedDescription == "Swift"
        }
        return false
    }

    /// A name as a coding key: without backticks.
    private static func key(_ name: String) -> String {
        name.hasPrefix("`") && name.hasSuffix("`") && name.count > 1 ? String(name.dropFirst().dropLast()) : name
    }

    /// Whether key `a` comes before `b` in JSON: `.sortedKeys` orders keys by their UTF-8
    /// bytes (not by Swift's `<`, which compares them normalized), as the JSON codec's encoder
    /// does.
    private static func jsonOrder(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    /// A JSON object member's key as JSON text — quoted, escaped as the JSON codec escapes
    /// strings (a raw identifier may hold a slash), with its colon — in a Swift string literal:
    /// `"\"id\":"`. The writer copies it as it is.
    private static func jsonMember(_ key: String) -> String {
        var json = "\""
        for scalar in key.unicodeScalars {
            switch scalar {
            case "\"": json += "\\\""
            case "\\": json += "\\\\"
            case "/": json += "\\/"
            case "\n": json += "\\n"
            case "\r": json += "\\r"
            case "\t": json += "\\t"
            case "\u{8}": json += "\\b"
            case "\u{C}": json += "\\f"
            case _ where scalar.value < 0x20: json += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            default: json.unicodeScalars.append(scalar)
            }
        }
        json += "\":"
        return literal(json)
    }

    /// A key (or any text) as a Swift string literal: its quotes and backslashes escaped, by
    /// scalar — a raw identifier may hold either, and put a combining mark after one, which
    /// makes one `Character` of the two that compares equal to neither.
    private static func literal(_ string: String) -> String {
        var literal = "\""
        for scalar in string.unicodeScalars {
            if scalar == "\\" || scalar == "\"" { literal.unicodeScalars.append("\\") }
            literal.unicodeScalars.append(scalar)
        }
        return literal + "\""
    }
}

struct MacroError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
