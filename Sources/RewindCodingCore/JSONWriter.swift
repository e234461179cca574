import Foundation

/// Writes one JSON payload for generated ``BinaryCodable`` code: the JSON codec's fast path
/// for encoding, as ``JSONReader`` is for decoding.
///
/// The bytes are `SortedJSONEncoder`'s, which are Foundation's `JSONEncoder`'s with
/// `.sortedKeys` and its default strategies. `Codable` gives a container no end, so the
/// encoder builds each value as a tree and sorts and writes it afterwards (a third of the
/// recorder's writer in a profile of JSON recording went to it); generated code knows its keys
/// at compile time, so the macro writes a struct's fields and an enum case's values already in
/// sorted order, and this writer appends each one as it comes.
///
/// **`SortedJSONEncoder` stays the reference.** A field whose type is only `Codable` (a
/// dictionary, a type without the macro) is written by that encoder, into the same bytes.
/// Anything the fast path would get wrong is thrown as ``Unsure`` — a number that is not
/// finite — and the codec then encodes the whole value with that encoder, whose error (or
/// bytes) is the answer: a refusal names where the value is, as Foundation's does.
/// `JSONWriterTests` checks the bytes against Foundation's over the examples' sessions and
/// the edges of each kind of value.
///
/// The writing paths are `@inlinable` so that the generated code in the app's module
/// specialises them.
public struct JSONWriter {
    /// The payload so far.
    @usableFromInline package internal(set) var bytes: [UInt8]
    /// Writes values that have no generated code.
    private let codable: SortedJSONEncoder

    package init(codable: SortedJSONEncoder, capacity: Int = 64) {
        self.codable = codable
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// The one error of the fast path: "encode the whole value through `Codable` instead". It
    /// never reaches the codec's caller.
    public struct Unsure: Error {
        @usableFromInline init() {}
    }

    // MARK: Objects

    /// An object being written: a struct's fields or an enum's case.
    public struct Object {
        /// Whether a member has been written (the next one needs a comma).
        @usableFromInline var hasMembers = false

        @inlinable init() {}
    }

    /// Starts an object at the current position. Write its members in the order `.sortedKeys`
    /// puts their keys (the macro sorts them), then close it with ``close(_:)``.
    ///
    /// A member is named by its key as JSON text — quoted, escaped, with its colon:
    /// `"\"productID\":"` — which the macro writes when it expands, so that writing a key is
    /// copying a constant.
    @inlinable
    public mutating func object() -> Object {
        bytes.append(UInt8(ascii: "{"))
        return Object()
    }

    /// Starts an object as the value of `member` in `parent`.
    @inlinable
    public mutating func nestedObject(member: StaticString, in parent: inout Object) -> Object {
        writeMember(member, in: &parent)
        return object()
    }

    /// Ends an object.
    @inlinable
    public mutating func close(_ object: Object) {
        bytes.append(UInt8(ascii: "}"))
    }

    /// Writes `value` as `member`.
    @inlinable
    public mutating func encode<T: BinaryCodable>(_ value: T, member: StaticString, in object: inout Object) throws {
        writeMember(member, in: &object)
        try value.encode(json: &self)
    }

    /// Writes `value` as `member` through its `Codable` conformance (a type without the macro).
    public mutating func encode<T: Encodable>(_ value: T, member: StaticString, in object: inout Object) throws {
        writeMember(member, in: &object)
        try encodeWithCodable(value)
    }

    /// Writes `value` as `member`, or nothing when it is `nil` (as `encodeIfPresent` does).
    @inlinable
    public mutating func encodeIfPresent<T: BinaryCodable>(_ value: T?, member: StaticString, in object: inout Object) throws {
        guard let value else { return }
        try encode(value, member: member, in: &object)
    }

    /// Writes `value` as `member` through `Codable`, or nothing when it is `nil`.
    public mutating func encodeIfPresent<T: Encodable>(_ value: T?, member: StaticString, in object: inout Object) throws {
        guard let value else { return }
        try encode(value, member: member, in: &object)
    }

    /// A member's key and colon, after a comma if the object has members already.
    @inlinable
    mutating func writeMember(_ member: StaticString, in object: inout Object) {
        if object.hasMembers { bytes.append(UInt8(ascii: ",")) }
        object.hasMembers = true
        member.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Writes `value` through its `Codable` conformance, with `SortedJSONEncoder`. A whole
    /// payload without generated code (a type conformed by hand) is left to the reference: what
    /// encodes nothing is `{}` inside a container but refused at the top level.
    package mutating func encodeWithCodable<T: Encodable>(_ value: T) throws {
        guard !bytes.isEmpty else { throw Unsure() }
        try codable.encodeNested(value, into: &bytes)
    }

    // MARK: Lists and leaves (the standard conformances)

    @inlinable
    mutating func writeList<C: Collection>(_ elements: C) throws where C.Element: BinaryCodable {
        bytes.append(UInt8(ascii: "["))
        var first = true
        for element in elements {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            try element.encode(json: &self)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    @inlinable
    mutating func writeLiteral(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    @inlinable
    mutating func writeString(_ text: String) {
        var text = text
        text.withUTF8 { Self.appendString(UnsafeRawBufferPointer($0), to: &bytes) }
    }

    /// An integer in decimal, as `String(value)` writes it, without making the string.
    @inlinable
    mutating func writeInteger<T: FixedWidthInteger>(_ value: T) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = UInt64(value.magnitude)
        // 24 bytes hold `UInt64.max`'s 20 digits.
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { buffer in
            var start = buffer.count
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[start...]))
        }
    }

    /// A finite number as Foundation writes it; a non-finite one is left to the reference
    /// encoder, which refuses it naming where it is.
    @inlinable
    mutating func writeFloatingPoint<F: BinaryFloatingPoint & LosslessStringConvertible>(_ value: F) throws {
        guard value.isFinite else { throw Unsure() }
        var text = Self.numberText(value)
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// A floating-point number as Foundation's `JSONEncoder` writes it: its shortest
    /// round-tripping form, without a trailing `.0`.
    @inlinable
    static func numberText<F: BinaryFloatingPoint & LosslessStringConvertible>(_ value: F) -> String {
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// A JSON string as Foundation's `JSONEncoder` writes it: the UTF-8 bytes as they are, but
    /// for quotes, backslashes, slashes (`\/`) and control characters, escaped as short as JSON
    /// allows. The one string writer of the codec: `SortedJSONEncoder`'s tree writes with it too.
    @usableFromInline
    static func appendString(_ utf8: UnsafeRawBufferPointer, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var runStart = 0
        for index in 0..<utf8.count {
            let byte = utf8[index]
            // Every byte of every string passes here, so it is tested with literals rather than
            // `UInt8(ascii:)` and range patterns: a debug build (the one `swift run rewind`
            // makes, and the tests') calls each of those, about a tenth of a debug `rewind
            // export`'s time; a release build measured the same either way.
            if byte >= 0x20 && byte != 0x22 && byte != 0x5C && byte != 0x2F { continue }
            let escape: UInt8
            switch byte {
            case 0x22, 0x5C, 0x2F: escape = byte  // " \ /
            case 0x0A: escape = 0x6E              // \n
            case 0x0D: escape = 0x72              // \r
            case 0x09: escape = 0x74              // \t
            case 0x08: escape = 0x62              // \b
            case 0x0C: escape = 0x66              // \f
            default: escape = 0                   // another control character: \u00XX
            }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: utf8[runStart..<index]))
            runStart = index + 1
            bytes.append(UInt8(ascii: "\\"))
            if escape == 0 {
                bytes.append(contentsOf: "u00".utf8)
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0x0F)])
            } else {
                bytes.append(escape)
            }
        }
        bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: utf8[runStart...]))
        bytes.append(UInt8(ascii: "\""))
    }
}
