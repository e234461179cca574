/// Generates a `BinaryCodable` conformance (RewindCodingCore's protocol) that reads and writes
/// exactly the bytes the binary codec would write through the type's synthesized `Codable`
/// conformance, and reads and writes JSON as Foundation's `JSONDecoder` and `JSONEncoder`
/// (`.sortedKeys`) would through it.
///
/// Attach it to a struct or an enum that conforms to `Codable` without customising it:
/// - structs: every stored property is a field keyed by its name (a `let` with an initial
///   value is written but not read, as with `Codable`);
/// - enums with associated values or none: keyed by case name, then by label (`_0`, `_1`, …
///   for unlabelled values);
/// - enums with a `String` or integer raw type: the raw value.
///
/// Optional fields must be spelled `T?` or `Optional<T>` (as the synthesized code sees them,
/// they are left out when `nil`). A type that declares its own `CodingKeys`, `init(from:)` or
/// `encode(to:)` is refused with an error, since the bytes would no longer match.
@attached(extension, conformances: BinaryCodable, names: named(init(binary:)), named(init(json:)), named(encode(binary:)), named(encode(json:)), named(generatedCasePath), named(generatesCasePath), named(generatedShape))
public macro BinaryCodable() = #externalMacro(module: "RewindMacros", type: "BinaryCodableMacro")
