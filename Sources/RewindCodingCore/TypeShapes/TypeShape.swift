/// The structure of a `Codable` type as its encoding shows it: the fields of its structs, the
/// cases of its enums and their values, recursively, down to numbers and strings. A session
/// records its action and state types' shapes, so that a later build can tell what changed
/// even when nobody bumped a schema version.
///
/// ```swift
/// let shape = TypeShape.of(ShopAction.self)
/// print(shape.definitions.joined(separator: "\n"))   // the definitions, one type a line
/// print(shape.fingerprint)   // "3f9c2a61d04b7e15": changes when the encoding's structure does
/// ```
///
/// Shapes are derived at run time by probing the type's `init(from:)` (see ``of(_:probing:)`` for what
/// that can and cannot see).
public indirect enum TypeShape: Sendable, Hashable, Codable {
    /// A leaf: `Int`, `String`, `Double`, `Bool`, `Date`, `UUID`, `Data`, `URL`, `Decimal`, the
    /// sized integers and `Float`.
    case value(String)
    /// An optional value: absent from the encoding when `nil`.
    case optional(TypeShape)
    /// An array or a set.
    case list(TypeShape)
    /// A dictionary.
    case map(key: TypeShape, value: TypeShape)
    /// A struct or class: named fields, in the order its decoding reads them.
    case record(name: String, fields: [Field])
    /// An enum encoded by case name (with each case's values), or by raw value (cases without
    /// fields, named by their raw values).
    case choice(name: String, cases: [Case])
    /// A type that is already being described further up: a recursive reference.
    case reference(String)
    /// What probing could not see, and why.
    case opaque(name: String, reason: String)

    /// A named field of a record or of an enum case.
    public struct Field: Sendable, Hashable, Codable {
        public var name: String
        public var shape: TypeShape

        public init(name: String, shape: TypeShape) {
            self.name = name
            self.shape = shape
        }
    }

    /// An enum case and its values (`_0`, `_1`, … for unlabelled ones).
    public struct Case: Sendable, Hashable, Codable {
        public var name: String
        public var fields: [Field]

        public init(name: String, fields: [Field]) {
            self.name = name
            self.fields = fields
        }
    }
}

extension TypeShape {
    /// The type's name as its shape gives it (`Int`, `[CartLine]`, `ShopAction`).
    public var typeName: String {
        switch self {
        case let .value(name), let .reference(name): name
        case let .optional(wrapped): wrapped.typeName + "?"
        case let .list(element): "[\(element.typeName)]"
        case let .map(key, value): "[\(key.typeName): \(value.typeName)]"
        case let .record(name, _), let .choice(name, _), let .opaque(name, _): name
        }
    }

    /// The shape without type names, in one line: what ``fingerprint`` hashes. Renaming a type
    /// does not change how its values encode, so it does not change the fingerprint, and
    /// neither does reordering fields or cases (they are coded by name, so they are sorted
    /// here); renaming a field or a case, adding or removing one, or changing a field's type
    /// does. Unnamed values (`_0`, `_1`) keep their order.
    public var canonical: String {
        func fields(_ fields: [Field]) -> String {
            fields.sorted { $0.name < $1.name }.map { $0.name + ":" + $0.shape.canonical }.joined(separator: ",")
        }
        return switch self {
        case let .value(name): name
        case .reference: "^"
        case let .optional(wrapped): wrapped.canonical + "?"
        case let .list(element): "[" + element.canonical + "]"
        case let .map(key, value): "[" + key.canonical + ":" + value.canonical + "]"
        case let .record(_, members): "{" + fields(members) + "}"
        case let .choice(_, cases):
            "<" + cases.sorted { $0.name < $1.name }.map { $0.name + ($0.fields.isEmpty ? "" : "(" + fields($0.fields) + ")") }.joined(separator: "|") + ">"
        case .opaque: "?opaque"
        }
    }

    /// A short hash of ``canonical``: 16 hex digits of 64-bit FNV-1a. It tells shapes apart; it
    /// is not a security measure.
    public var fingerprint: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in canonical.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The definitions of every record and enum in the shape, one a line, the root first:
    ///
    /// ```
    /// ShopAction = cart(_0: CartAction) | catalogue(_0: CatalogueAction)
    /// CartAction = add(productID: String, quantity: Int) | remove(productID: String)
    /// ```
    public var definitions: [String] {
        var seen: Set<String> = [], lines: [String] = []
        func describe(_ field: Field) -> String {
            // The mark probing leaves where it stopped seeing (see `of(_:)`).
            if field.name == "…", case let .opaque(_, reason) = field.shape { return "… (not visible: \(reason))" }
            return "\(field.name): \(field.shape.typeName)"
        }
        func visit(_ shape: TypeShape) {
            switch shape {
            case .value, .reference: break
            case let .optional(wrapped), let .list(wrapped): visit(wrapped)
            case let .map(key, value):
                visit(key)
                visit(value)
            case let .record(name, fields):
                guard seen.insert(name).inserted else { return }
                lines.append("\(name) = { " + fields.map(describe).joined(separator: ", ") + " }")
                fields.forEach { visit($0.shape) }
            case let .choice(name, cases):
                guard seen.insert(name).inserted else { return }
                lines.append("\(name) = " + cases.map { item in
                    item.name + (item.fields.isEmpty ? "" : "(" + item.fields.map(describe).joined(separator: ", ") + ")")
                }.joined(separator: " | "))
                cases.forEach { $0.fields.forEach { visit($0.shape) } }
            case let .opaque(name, reason):
                guard seen.insert(name).inserted else { return }
                lines.append("\(name) = ? (\(reason))")
            }
        }
        visit(self)
        return lines
    }
}
