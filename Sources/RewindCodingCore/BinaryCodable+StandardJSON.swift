public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The standard types' JSON readers, each taking what Foundation's `JSONDecoder` (default
// strategies) would decode to the same value, and unsure of anything else (see `JSONReader`).

extension Bool {
    @inlinable public init(json reader: inout JSONReader) throws { self = try reader.readBool() }
}

extension Int {
    @inlinable public init(json reader: inout JSONReader) throws { self = try reader.readInteger(Int.self) }
}

extension Int8 {
    @inlinable public init(json reader: inout JSONReader) throws { self = try reader.readInteger(Int8.self) }
}

extension Int16 {
    @inlinable public init(json reader: inout JSONReader) throws { self = try reader.readInteger(Int16.self) }
}

extension Int32 {
    @inlinable public init(json reader: inout JSONReader) throws { self = try reader.readInteger(Int32.self) }
}

extension Int64 {
    @inlinable public init(json reader: inout JSONReader) throws { self = try reader.readInteger(Int64.self) }
}

extension UInt {
    @inlinable public init(json reader: inout JSONReader) throws { self = try reader.readInteger(UInt.self) }
}

extension UInt8 {
    @inlinable public init(json reader: inout JSONReader) throws { self = try reader.readInteger(UInt8.self) }
}

extension UInt16 {
    @inlinable public init(json reader: inout JSONReader) throws { self = try reader.readInteger(UInt16.self) }
}

extension UInt32 {
    @inlinable public init(json reader: inout JSONReader) throws { self = try reader.readInteger(UInt32.self) }
}

extension UInt64 {
    @inlinable public init(json reader: inout JSONReader) throws { self = try reader.readInteger(UInt64.self) }
}

extension Double {
    @inlinable public init(json reader: inout JSONReader) throws { self = try reader.readFloatingPoint { strtod($0, nil) } }
}

extension Float {
    /// `strtof`, as Foundation reads a `Float` (not a `Double` rounded again).
    @inlinable public init(json reader: inout JSONReader) throws { self = try reader.readFloatingPoint { strtof($0, nil) } }
}

extension String {
    @inlinable public init(json reader: inout JSONReader) throws { self = try reader.readString() }
}

extension UUID {
    /// Its string, as `UUID`'s `Codable` reads it.
    @inlinable public init(json reader: inout JSONReader) throws { self = try reader.readUUID() }
}

extension Date {
    /// Seconds since 2001, Foundation's default date strategy.
    @inlinable public init(json reader: inout JSONReader) throws {
        self.init(timeIntervalSinceReferenceDate: try Double(json: &reader))
    }
}

// `Data` (base64) and `URL` take the protocol's default, Foundation's decoder over the value's
// bytes: neither is common in actions, and each has parsing rules of its own.

extension Optional where Wrapped: BinaryCodable {
    @inlinable public init(json reader: inout JSONReader) throws {
        self = reader.isNull ? nil : try Wrapped(json: &reader)
    }
}

extension Array where Element: BinaryCodable {
    @inlinable public init(json reader: inout JSONReader) throws {
        self = try reader.readArray { try Element(json: &$0) }
    }
}

// The standard types' JSON writers, each writing the bytes `SortedJSONEncoder` (and so
// Foundation's `JSONEncoder` with its default strategies) writes for the value.

extension Bool {
    @inlinable public func encode(json writer: inout JSONWriter) throws { writer.writeLiteral(self ? "true" : "false") }
}

extension Int {
    @inlinable public func encode(json writer: inout JSONWriter) throws { writer.writeInteger(self) }
}

extension Int8 {
    @inlinable public func encode(json writer: inout JSONWriter) throws { writer.writeInteger(self) }
}

extension Int16 {
    @inlinable public func encode(json writer: inout JSONWriter) throws { writer.writeInteger(self) }
}

extension Int32 {
    @inlinable public func encode(json writer: inout JSONWriter) throws { writer.writeInteger(self) }
}

extension Int64 {
    @inlinable public func encode(json writer: inout JSONWriter) throws { writer.writeInteger(self) }
}

extension UInt {
    @inlinable public func encode(json writer: inout JSONWriter) throws { writer.writeInteger(self) }
}

extension UInt8 {
    @inlinable public func encode(json writer: inout JSONWriter) throws { writer.writeInteger(self) }
}

extension UInt16 {
    @inlinable public func encode(json writer: inout JSONWriter) throws { writer.writeInteger(self) }
}

extension UInt32 {
    @inlinable public func encode(json writer: inout JSONWriter) throws { writer.writeInteger(self) }
}

extension UInt64 {
    @inlinable public func encode(json writer: inout JSONWriter) throws { writer.writeInteger(self) }
}

extension Double {
    @inlinable public func encode(json writer: inout JSONWriter) throws { try writer.writeFloatingPoint(self) }
}

extension Float {
    @inlinable public func encode(json writer: inout JSONWriter) throws { try writer.writeFloatingPoint(self) }
}

extension String {
    @inlinable public func encode(json writer: inout JSONWriter) throws { writer.writeString(self) }
}

extension UUID {
    /// Its string, as `UUID`'s `Codable` writes it.
    @inlinable public func encode(json writer: inout JSONWriter) throws { writer.writeString(uuidString) }
}

extension Date {
    /// Seconds since 2001, Foundation's default date strategy.
    @inlinable public func encode(json writer: inout JSONWriter) throws { try writer.writeFloatingPoint(timeIntervalSinceReferenceDate) }
}

extension Data {
    /// Base64, Foundation's default data strategy.
    @inlinable public func encode(json writer: inout JSONWriter) throws { writer.writeString(base64EncodedString()) }
}

extension URL {
    /// Its absolute string, as Foundation's `JSONEncoder` writes a URL.
    @inlinable public func encode(json writer: inout JSONWriter) throws { writer.writeString(absoluteString) }
}

extension Optional where Wrapped: BinaryCodable {
    /// `null`, or the value: an optional as a value (an element of a list, say). Optional
    /// fields are left out instead, through `encodeIfPresent`.
    @inlinable public func encode(json writer: inout JSONWriter) throws {
        guard let self else { return writer.writeLiteral("null") }
        try self.encode(json: &writer)
    }
}

extension Array where Element: BinaryCodable {
    @inlinable public func encode(json writer: inout JSONWriter) throws { try writer.writeList(self) }
}
