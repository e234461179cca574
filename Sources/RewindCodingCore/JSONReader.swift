public import Foundation

/// Reads one JSON payload for generated ``BinaryCodable`` code: the JSON codec's fast path.
///
/// Foundation's `JSONDecoder` spends nearly all of its time in `Codable`'s containers, not in
/// parsing (the bench's `json-decoding` workload: parsing is a few percent of it). Generated
/// code reads a tape of the payload instead (`JSONTape`: one strict pass over it), finding keys
/// by comparing bytes and building nothing but the value.
///
/// **Foundation stays the reference.** The reader takes only the plainest JSON: strict syntax,
/// object keys in ASCII without escapes and each once, integers without a fraction or an
/// exponent, floating-point numbers in the type's normal range (and zero written `0` or `-0`),
/// UUIDs in their canonical form, enums whose object has exactly its one case key. On anything else — a missing key, a
/// `null` where a value must be, a wrong type, a string that is not valid UTF-8, anything it is
/// unsure of — it gives up (every read throws the same ``Unsure`` error) and the codec decodes
/// the whole payload with Foundation's decoder, whose value or error, coding path and message
/// included, is the answer. So the reader must only never succeed where Foundation would fail
/// or decode differently; `JSONReaderTests` checks that against Foundation over the encoder's
/// corpus, hostile JSON and mutated payloads.
///
/// Like ``BinaryReader``, it borrows the payload's bytes for one decode, and its reading paths
/// are `@inlinable` so that the generated code in the app's module specialises them.
public struct JSONReader {
    @usableFromInline let bytes: UnsafeRawBufferPointer
    @usableFromInline let tokens: UnsafeBufferPointer<JSONToken>
    /// The token of the value being read.
    @usableFromInline var index: Int

    @usableFromInline
    init(bytes: UnsafeRawBufferPointer, tokens: UnsafeBufferPointer<JSONToken>) {
        self.bytes = bytes
        self.tokens = tokens
        index = 0
    }

    /// The one error of the fast path: "ask Foundation's decoder instead". It never reaches
    /// the codec's caller.
    public struct Unsure: Error {
        /// The error; generated code throws it for a case or raw value the type does not have.
        public init() {}
    }

    /// Reads `bytes` as a `T` with its generated code, or `nil` when the fast path is unsure
    /// (see above): then only Foundation's decoder may answer.
    @inlinable
    package static func read<T: BinaryCodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) -> T? {
        read(from: bytes) { try T(json: &$0) }
    }

    /// Reads `bytes` with `read`, or `nil` when the fast path is unsure, as
    /// ``read(_:from:)``: for the package's own hand-written readers (an export's event lines),
    /// under the same rule — never a value where Foundation would fail or read another.
    @inlinable
    package static func read<T>(from bytes: UnsafeRawBufferPointer, _ read: (inout JSONReader) throws -> T) -> T? {
        JSONTape.withTape(of: bytes) { tokens in
            var reader = JSONReader(bytes: bytes, tokens: tokens)
            return try? read(&reader)
        }
    }

    @inlinable
    var token: JSONToken { tokens[index] }

    // MARK: Objects

    /// An object being read as a struct's fields or an enum case's values.
    public struct Object {
        /// The token of the first key.
        @usableFromInline let first: Int
        @usableFromInline let count: Int
        /// Where the next search starts: keys are usually read in the order they are written.
        @usableFromInline var cursor: Int
        @usableFromInline var cursorIndex = 0

        @inlinable
        init(first: Int, count: Int) {
            self.first = first
            self.count = count
            cursor = first
        }
    }

    /// Opens the current value as an object whose keys are all plain and distinct.
    @inlinable
    public mutating func object() throws -> Object {
        let token = self.token
        guard token.kind == .object else { throw Unsure() }
        let object = Object(first: index + 1, count: Int(token.count))
        try checkKeys(of: object)
        return object
    }

    /// Every key ASCII without escapes (Foundation compares keys as `String`s, under which
    /// "\u{212A}" equals "K"), and none twice (which one Foundation takes is its business).
    @usableFromInline
    func checkKeys(of object: Object) throws {
        var keys: [Int] = []
        var key = object.first
        for member in 0..<object.count {
            let token = tokens[key]
            guard !token.isComplex else { throw Unsure() }
            if object.count <= 16 {
                // A struct's few keys: each against those before it, nothing allocated.
                var other = object.first
                for _ in 0..<member {
                    if compareKeys(other, key) == 0 { throw Unsure() }
                    other = Int(tokens[other + 1].next)
                }
            } else {
                keys.append(key)
            }
            key = Int(tokens[key + 1].next)
        }
        // Many keys (a crafted object, say): sorted, so a duplicate costs n log n to find, not n².
        keys.sort { compareKeys($0, $1) < 0 }
        for index in keys.indices.dropFirst() where compareKeys(keys[index - 1], keys[index]) == 0 { throw Unsure() }
    }

    /// Orders two key tokens by length, then bytes.
    @usableFromInline
    func compareKeys(_ a: Int, _ b: Int) -> Int32 {
        let (a, b) = (tokens[a], tokens[b])
        guard a.length == b.length else { return a.length < b.length ? -1 : 1 }
        return memcmp(bytes.baseAddress! + Int(a.start), bytes.baseAddress! + Int(b.start), Int(a.length))
    }

    /// Whether the key token at `key` spells `name` (a plain key, quotes included in its length).
    @inlinable
    func key(_ key: Int, is name: StaticString) -> Bool {
        let token = tokens[key]
        return name.withUTF8Buffer { name in
            Int(token.length) == name.count + 2 && (name.isEmpty || memcmp(bytes.baseAddress! + Int(token.start) + 1, name.baseAddress!, name.count) == 0)
        }
    }

    /// The token of `name`'s value, searching on from the last key found and wrapping around once.
    @inlinable
    func find(_ name: StaticString, in object: inout Object) throws -> Int? {
        // Keys were checked to be ASCII; a name that is not could still equal one as a `String`.
        guard name.isASCII else { throw Unsure() }
        for _ in 0..<object.count {
            if object.cursorIndex == object.count {
                object.cursor = object.first
                object.cursorIndex = 0
            }
            let key = object.cursor
            object.cursor = Int(tokens[key + 1].next)
            object.cursorIndex += 1
            if self.key(key, is: name) { return key + 1 }
        }
        return nil
    }

    /// Reads `read` at the token `value`, then returns to the current one.
    @inlinable
    mutating func reading<T>(_ value: Int, _ read: (inout JSONReader) throws -> T) rethrows -> T {
        let saved = index
        index = value
        defer { index = saved }
        return try read(&self)
    }

    /// Reads the value of `key` (a missing key: unsure).
    @inlinable
    public mutating func decode<T: BinaryCodable>(_ type: T.Type = T.self, forKey key: StaticString, in object: inout Object) throws -> T {
        guard let value = try find(key, in: &object) else { throw Unsure() }
        return try reading(value) { try T(json: &$0) }
    }

    /// Reads the value of `key` with `read` (a missing key: unsure): a hand-written reader's
    /// nested object.
    @inlinable
    package mutating func read<T>(forKey key: StaticString, in object: inout Object, _ read: (inout JSONReader) throws -> T) throws -> T {
        guard let value = try find(key, in: &object) else { throw Unsure() }
        return try reading(value, read)
    }

    /// Reads the value of `key` through its type's `Codable` conformance (a type without the
    /// macro), with Foundation's decoder over the value's bytes.
    public mutating func decode<T: Decodable>(_ type: T.Type = T.self, forKey key: StaticString, in object: inout Object) throws -> T {
        guard let value = try find(key, in: &object) else { throw Unsure() }
        return try reading(value) { try $0.decodeWithFoundation() }
    }

    /// Reads the value of `key`, or `nil` when the key is absent or holds `null` (as
    /// `decodeIfPresent` does).
    @inlinable
    public mutating func decodeIfPresent<T: BinaryCodable>(_ type: T.Type = T.self, forKey key: StaticString, in object: inout Object) throws -> T? {
        guard let value = try find(key, in: &object), tokens[value].kind != .null else { return nil }
        return try reading(value) { try T(json: &$0) }
    }

    /// Reads the value of `key` through `Codable`, or `nil` when it is absent or `null`.
    public mutating func decodeIfPresent<T: Decodable>(_ type: T.Type = T.self, forKey key: StaticString, in object: inout Object) throws -> T? {
        guard let value = try find(key, in: &object), tokens[value].kind != .null else { return nil }
        return try reading(value) { try $0.decodeWithFoundation() }
    }

    /// Foundation's decoder, made once: documented thread-safe once configured, as the codec's own.
    private static let foundation = JSONDecoder()

    /// The current value through Foundation's decoder, as a document of its own: the same
    /// value it would decode in place (an error makes the whole payload Foundation's anyway).
    public func decodeWithFoundation<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        let token = self.token
        let text = Data(UnsafeRawBufferPointer(rebasing: bytes[Int(token.start)..<Int(token.start + token.length)]))
        do {
            return try Self.foundation.decode(T.self, from: text)
        } catch {
            throw Unsure()
        }
    }

    // MARK: Enums

    /// The one member of an enum's object: the case's key and its value.
    public struct EnumCase {
        @usableFromInline let key: Int

        @inlinable
        init(key: Int) { self.key = key }
    }

    /// Opens the current value as an enum's: an object with exactly one plain key.
    /// (Foundation ignores keys that name no case; with them, the reader is unsure.)
    @inlinable
    public mutating func enumCase() throws -> EnumCase {
        let token = self.token
        guard token.kind == .object, token.count == 1, !tokens[index + 1].isComplex else { throw Unsure() }
        return EnumCase(key: index + 1)
    }

    /// Whether the case is `name`.
    @inlinable
    public func isCase(_ choice: EnumCase, _ name: StaticString) -> Bool {
        name.isASCII && key(choice.key, is: name)
    }

    /// The case's associated values: an object keyed by label (`_0`, `_1`, … when unlabelled).
    /// A case without values has an object too, whose keys are not read.
    @inlinable
    public mutating func values(of choice: EnumCase) throws -> Object {
        try reading(choice.key + 1) { try $0.object() }
    }

    // MARK: Leaves (the standard conformances)

    /// The current value as a `Bool`.
    @inlinable
    func readBool() throws -> Bool {
        switch token.kind {
        case .true: return true
        case .false: return false
        default: throw Unsure()
        }
    }

    /// An integer written without a fraction or an exponent that fits `T`.
    @inlinable
    func readInteger<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        let token = self.token
        guard token.kind == .number, !token.isComplex else { throw Unsure() }
        var position = Int(token.start)
        let end = position + Int(token.length)
        let negative = bytes[position] == UInt8(ascii: "-")
        if negative {
            // "-0" into an unsigned type, for one, is Foundation's to judge.
            guard T.isSigned else { throw Unsure() }
            position += 1
        }
        var magnitude: UInt64 = 0
        while position < end {
            let (times10, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times10.addingReportingOverflow(UInt64(bytes[position] &- UInt8(ascii: "0")))
            guard !overflow, !carry else { throw Unsure() }
            magnitude = sum
            position += 1
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1, let value = T(exactly: Int64(bitPattern: 0 &- magnitude)) else { throw Unsure() }
            return value
        }
        guard let value = T(exactly: magnitude) else { throw Unsure() }
        return value
    }

    /// A number as `strtod` or `strtof` (`parse`) reads it, as Foundation's decoder does. A
    /// result out of range, below the normal range or zero is Foundation's to judge: it refuses
    /// some zeros and not others ("0e5" but not "0e+5", "-0.0e1" but not "-0e5").
    @inlinable
    func readFloatingPoint<T: BinaryFloatingPoint>(_ parse: (UnsafePointer<CChar>) -> T) throws -> T {
        let token = self.token
        guard token.kind == .number else { throw Unsure() }
        if !token.isComplex, token.length <= 15 {
            // Up to 15 characters: the integer is exact in a Double, so it is what strtod would
            // read, without the call. "-0" (the only integer token that is zero and negative)
            // is a negative zero, as Foundation decodes it and its encoder writes -0.0.
            let integer = try readInteger(Int64.self)
            if integer == 0, bytes[Int(token.start)] == UInt8(ascii: "-") { return -0.0 }
            if T.self == Double.self || integer.magnitude < 1 << 24 { return T(integer) }
        }
        guard token.length < 64 else { throw Unsure() }
        let value = withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(token.length) + 1) { text in
            let start = bytes.baseAddress!.advanced(by: Int(token.start)).assumingMemoryBound(to: CChar.self)
            text.baseAddress!.update(from: start, count: Int(token.length))
            text[Int(token.length)] = 0
            return parse(text.baseAddress!)
        }
        guard value.isNormal else { throw Unsure() }
        return value
    }

    /// The current value as a `String`.
    @inlinable
    func readString() throws -> String {
        let token = self.token
        guard token.kind == .string else { throw Unsure() }
        let content = UnsafeRawBufferPointer(rebasing: bytes[Int(token.start + 1)..<Int(token.start + token.length - 1)])
        if !token.isComplex { return String(decoding: content, as: UTF8.self) }
        return try Self.unescaped(content)
    }

    /// A UUID in its canonical 36 characters (hex digits in either case, dashes at 8, 13, 18
    /// and 23), parsed here: Foundation's `UUID(uuidString:)` goes through `sscanf` on Linux,
    /// which was most of a todo action's decoding. Other spellings it may take are unsure.
    @inlinable
    func readUUID() throws -> UUID {
        let token = self.token
        guard token.kind == .string, token.length == 38 else { throw Unsure() }
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var position = Int(token.start) + 1
        try withUnsafeMutableBytes(of: &uuid) { out in
            for index in 0..<16 {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    guard bytes[position] == UInt8(ascii: "-") else { throw Unsure() }
                    position += 1
                }
                out[index] = try Self.hexDigit(bytes[position]) << 4 | Self.hexDigit(bytes[position + 1])
                position += 2
            }
        }
        return UUID(uuid: uuid)
    }

    @inlinable
    static func hexDigit(_ byte: UInt8) throws -> UInt8 {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: throw Unsure()
        }
    }

    /// A string with escapes or bytes above ASCII: valid UTF-8, and every escape one JSON
    /// allows, surrogates in pairs; anything else is unsure.
    @usableFromInline
    static func unescaped(_ content: UnsafeRawBufferPointer) throws -> String {
        guard content.contains(UInt8(ascii: "\\")) else {
            guard let string = ValidatedUTF8.string(content) else { throw Unsure() }
            return string
        }
        var utf8: [UInt8] = []
        utf8.reserveCapacity(content.count)
        var position = 0
        func hex4() throws -> UInt32 {
            guard content.count - position >= 4 else { throw Unsure() }
            var value: UInt32 = 0
            for _ in 0..<4 {
                value = value << 4 | UInt32(try hexDigit(content[position]))
                position += 1
            }
            return value
        }
        while position < content.count {
            let byte = content[position]
            position += 1
            guard byte == UInt8(ascii: "\\") else {
                utf8.append(byte)
                continue
            }
            guard position < content.count else { throw Unsure() }
            let escape = content[position]
            position += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if scalar >= 0xD800, scalar < 0xDC00 {
                    guard content.count - position >= 6, content[position] == UInt8(ascii: "\\"), content[position + 1] == UInt8(ascii: "u") else { throw Unsure() }
                    position += 2
                    let low = try hex4()
                    guard low >= 0xDC00, low < 0xE000 else { throw Unsure() }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let unicode = Unicode.Scalar(scalar) else { throw Unsure() }
                utf8.append(contentsOf: UTF8.encode(unicode)!)
            default:
                throw Unsure()
            }
        }
        return try utf8.withUnsafeBytes { bytes in
            guard let string = ValidatedUTF8.string(bytes) else { throw Unsure() }
            return string
        }
    }

    /// An array's elements, each read with `read`.
    @inlinable
    mutating func readArray<Element>(_ read: (inout JSONReader) throws -> Element) throws -> [Element] {
        let token = self.token
        guard token.kind == .array else { throw Unsure() }
        var elements: [Element] = []
        elements.reserveCapacity(Int(token.count))
        var element = index + 1
        for _ in 0..<Int(token.count) {
            elements.append(try reading(element, read))
            element = Int(tokens[element].next)
        }
        return elements
    }

    /// Whether the current value is `null`.
    @inlinable
    var isNull: Bool { token.kind == .null }
}
