/// A type the binary codec reads and writes, and the JSON codec reads, with generated code
/// instead of `Codable`'s containers: the same bytes and values, several times faster.
///
/// Decoding an action through `Codable` costs a keyed container per level (an allocation and
/// generic metadata look-ups each) and an `allKeys` array per enum; for the small actions a log
/// holds, that is most of replay's time. A `BinaryCodable` type reads its fields straight from
/// the payload instead. Don't conform by hand: attach the `@BinaryCodable` macro (`import
/// RewindCoding`), which writes both requirements from the type's declaration, exactly as the
/// synthesized `Codable` conformance would lay the value out:
///
/// ```swift
/// @BinaryCodable
/// enum CartAction: Codable {
///     case add(productID: String, quantity: Int)
///     case clear
/// }
/// ```
///
/// The JSON codec (the default) reads and writes such a type with generated code too
/// (`init(json:)`, `encode(json:)`): it reads the same value, or the same error, as
/// Foundation's `JSONDecoder`, handing anything but the plainest JSON to Foundation's decoder
/// (see ``JSONReader``), and writes the bytes Foundation's `JSONEncoder` writes with
/// `.sortedKeys` (see ``JSONWriter``).
///
/// The bytes are the binary codec's `Codable` bytes, so logs written either way read either way,
/// a type can adopt or drop the macro at any time, and fields whose types are only `Codable`
/// (a dictionary, a type without the macro) go through `Codable` inside the generated code.
///
/// Standard types conform already: `Bool`, the integer and floating-point types, `String`,
/// `UUID`, `Date`, `Data`, `URL`, and optionals and arrays of conforming types.
public protocol BinaryCodable: Codable {
    /// Reads a value from the reader's current value.
    init(binary reader: inout BinaryReader) throws
    /// Writes the value at the writer's current position.
    func encode(binary writer: inout BinaryWriter) throws

    /// Reads the value from the JSON reader's current value, as Foundation's `JSONDecoder`
    /// would decode it, or throws when unsure (see ``JSONReader``): the JSON codec's fast path.
    init(json reader: inout JSONReader) throws

    /// Writes the value as the JSON codec's encoder writes it (Foundation's `JSONEncoder` with
    /// `.sortedKeys`), or throws when unsure (see ``JSONWriter``): the JSON codec's fast path.
    func encode(json writer: inout JSONWriter) throws

    /// The dotted case path the log shows for an enum value (`cart.remove` for
    /// `.cart(.remove(productID:))`), following a first unlabelled value that is itself an enum;
    /// `nil` for other types, or when a step of the path has no generated code. The recorder
    /// asks for it on every event: generated, it costs a switch instead of a partial encoding.
    var generatedCasePath: String? { get }

    /// Whether the type is an enum with a generated ``generatedCasePath``.
    static var generatesCasePath: Bool { get }

    /// The type's ``TypeShape``, written from its declaration at compile time, so that
    /// recording a session's shapes runs none of the type's decoding code; `nil` for a type
    /// without generated code, which is then probed (see ``TypeShape/of(_:probing:)``).
    static func generatedShape(_ describer: TypeShapeDescriber) -> TypeShape?
}

extension BinaryCodable {
    /// Foundation's decoder over the value's bytes: a type without generated code.
    public init(json reader: inout JSONReader) throws {
        self = try reader.decodeWithFoundation()
    }

    /// The value through its `Codable` conformance: a type without generated code.
    public func encode(json writer: inout JSONWriter) throws {
        try writer.encodeWithCodable(self)
    }

    /// None: only enums generate a case path.
    public var generatedCasePath: String? { nil }

    /// No: only enums generate a case path.
    public static var generatesCasePath: Bool { false }

    /// None: only the macro writes one.
    public static func generatedShape(_ describer: TypeShapeDescriber) -> TypeShape? { nil }
}
