import Foundation

// The JSON decoding spike (issue "close to the limit", JSON decoding): how much of Foundation's
// `JSONDecoder` time is parsing and how much is `Codable`'s containers, measured by a decoder
// built the usual fast way — a tape parser (one pass over the bytes, each token's place and,
// for an object or array, where it ends) under lazy containers that find keys on the tape by
// comparing bytes, building no tree and no `String` for a key.
//
// A spike, not a codec: it decodes what the bench's corpora hold, and it is checked against
// Foundation's decoder on them (the workload fails on a difference). It does not match
// Foundation's errors and coding paths, its hostile-input behaviour or its number edge cases.
// The codec's own reader grew out of it (`JSONTape` and `JSONReader` in RewindCodingCore: generated
// code instead of these containers, Foundation's decoder wherever it is unsure); the spike stays
// for the workload's "tape + lazy Codable containers" row, the cost of containers on a tape.

/// One token of the tape.
struct TapeToken {
    enum Kind: UInt8 { case object, array, string, escapedString, number, `true`, `false`, null }
    var kind: Kind
    /// The token's bytes: a string's without its quotes; an object's or array's from its
    /// opening bracket.
    var start: Int32
    var count: Int32
    /// For an object or array: the index of the token after its last one. Otherwise the next.
    var end: Int32
    /// For an object: its members; for an array: its elements.
    var members: Int32
}

/// The tape of one JSON document.
struct JSONTape {
    var bytes: UnsafeRawBufferPointer
    var tokens: [TapeToken] = []

    struct Malformed: Error { var offset: Int }

    init(_ bytes: UnsafeRawBufferPointer) throws {
        self.bytes = bytes
        tokens.reserveCapacity(bytes.count / 4 + 4)
        var offset = 0
        try parseValue(&offset)
        skipSpace(&offset)
        guard offset == bytes.count else { throw Malformed(offset: offset) }
    }

    @inline(__always) private func skipSpace(_ offset: inout Int) {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x09, 0x0A, 0x0D: offset += 1
            default: return
            }
        }
    }

    private mutating func parseValue(_ offset: inout Int) throws {
        skipSpace(&offset)
        guard offset < bytes.count else { throw Malformed(offset: offset) }
        switch bytes[offset] {
        case UInt8(ascii: "{"): try parseContainer(&offset, object: true)
        case UInt8(ascii: "["): try parseContainer(&offset, object: false)
        case UInt8(ascii: "\""): try parseString(&offset)
        case UInt8(ascii: "t"): try literal(&offset, "true", .true)
        case UInt8(ascii: "f"): try literal(&offset, "false", .false)
        case UInt8(ascii: "n"): try literal(&offset, "null", .null)
        default: try parseNumber(&offset)
        }
    }

    private mutating func literal(_ offset: inout Int, _ word: StaticString, _ kind: TapeToken.Kind) throws {
        let count = word.utf8CodeUnitCount
        guard offset + count <= bytes.count, memcmp(bytes.baseAddress! + offset, word.utf8Start, count) == 0 else { throw Malformed(offset: offset) }
        let index = Int32(tokens.count)
        tokens.append(TapeToken(kind: kind, start: Int32(offset), count: Int32(count), end: index + 1, members: 0))
        offset += count
    }

    private mutating func parseString(_ offset: inout Int) throws {
        let start = offset + 1
        var cursor = start
        var escaped = false
        while cursor < bytes.count {
            let byte = bytes[cursor]
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\") { escaped = true; cursor += 2; continue }
            guard byte >= 0x20 else { throw Malformed(offset: cursor) }
            cursor += 1
        }
        guard cursor < bytes.count else { throw Malformed(offset: offset) }
        let index = Int32(tokens.count)
        tokens.append(TapeToken(kind: escaped ? .escapedString : .string, start: Int32(start), count: Int32(cursor - start), end: index + 1, members: 0))
        offset = cursor + 1
    }

    private mutating func parseNumber(_ offset: inout Int) throws {
        let start = offset
        while offset < bytes.count {
            switch bytes[offset] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): offset += 1
            default:
                guard offset > start else { throw Malformed(offset: offset) }
                let index = Int32(tokens.count)
                tokens.append(TapeToken(kind: .number, start: Int32(start), count: Int32(offset - start), end: index + 1, members: 0))
                return
            }
        }
        guard offset > start else { throw Malformed(offset: offset) }
        let index = Int32(tokens.count)
        tokens.append(TapeToken(kind: .number, start: Int32(start), count: Int32(offset - start), end: index + 1, members: 0))
    }

    private mutating func parseContainer(_ offset: inout Int, object: Bool) throws {
        let index = tokens.count
        tokens.append(TapeToken(kind: object ? .object : .array, start: Int32(offset), count: 0, end: 0, members: 0))
        offset += 1
        var members: Int32 = 0
        skipSpace(&offset)
        let close = UInt8(ascii: object ? "}" : "]")
        if offset < bytes.count, bytes[offset] == close {
            offset += 1
        } else {
            while true {
                if object {
                    skipSpace(&offset)
                    guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { throw Malformed(offset: offset) }
                    try parseString(&offset)
                    skipSpace(&offset)
                    guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else { throw Malformed(offset: offset) }
                    offset += 1
                }
                try parseValue(&offset)
                members += 1
                skipSpace(&offset)
                guard offset < bytes.count else { throw Malformed(offset: offset) }
                if bytes[offset] == UInt8(ascii: ",") { offset += 1; continue }
                guard bytes[offset] == close else { throw Malformed(offset: offset) }
                offset += 1
                break
            }
        }
        tokens[index].end = Int32(tokens.count)
        tokens[index].members = members
    }

    /// A string token's value.
    func string(at index: Int) -> String {
        let token = tokens[index]
        let raw = UnsafeRawBufferPointer(rebasing: bytes[Int(token.start)..<Int(token.start + token.count)])
        guard token.kind == .escapedString else { return String(decoding: raw, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var i = 0
        while i < raw.count {
            let byte = raw[i]
            guard byte == UInt8(ascii: "\\"), i + 1 < raw.count else { out.append(byte); i += 1; continue }
            let next = raw[i + 1]
            i += 2
            switch next {
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "u"):
                guard i + 4 <= raw.count, let unit = UInt16(String(decoding: UnsafeRawBufferPointer(rebasing: raw[i..<i + 4]), as: UTF8.self), radix: 16) else { return "" }
                i += 4
                // The spike's corpora have no surrogate pairs; a lone one decodes as U+FFFD.
                let scalar = Unicode.Scalar(UInt32(unit)) ?? "\u{FFFD}"
                out.append(contentsOf: Array(String(Character(scalar)).utf8))
            default: out.append(next)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether the string token at `index` is `key`, compared byte for byte.
    @inline(__always) func matches(_ index: Int, _ key: String) -> Bool {
        let token = tokens[index]
        guard token.kind == .string else { return string(at: index) == key }
        var key = key
        return key.withUTF8 { utf8 in
            utf8.count == Int(token.count) && (utf8.count == 0 || memcmp(bytes.baseAddress! + Int(token.start), utf8.baseAddress!, utf8.count) == 0)
        }
    }

    /// A number token's text as a C string, for `strtod` and `strtoll`.
    func number<T>(at index: Int, _ parse: (UnsafePointer<CChar>) -> T?) -> T? {
        let token = tokens[index]
        guard token.kind == .number, token.count < 64 else { return nil }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(token.count) + 1) { buffer in
            memcpy(buffer.baseAddress!, bytes.baseAddress! + Int(token.start), Int(token.count))
            buffer[Int(token.count)] = 0
            return parse(buffer.baseAddress!)
        }
    }
}

/// `Decoder` over a tape: containers hold a token index and find keys by comparing bytes.
final class TapeDecoder: Decoder {
    let tape: JSONTape
    let index: Int
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(tape: JSONTape, index: Int) {
        self.tape = tape
        self.index = index
    }

    static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try data.withUnsafeBytes { bytes in
            let tape = try JSONTape(bytes)
            return try T(from: TapeDecoder(tape: tape, index: 0))
        }
    }

    struct Mismatch: Error { var what: String }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard tape.tokens[index].kind == .object else { throw Mismatch(what: "an object") }
        return KeyedDecodingContainer(Keyed<Key>(decoder: self, object: index))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard tape.tokens[index].kind == .array else { throw Mismatch(what: "an array") }
        return Unkeyed(decoder: self, array: index)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(decoder: self, value: index) }

    func child(_ index: Int) -> TapeDecoder { TapeDecoder(tape: tape, index: index) }

    // MARK: - Values

    func decodeValue<T: Decodable>(_ type: T.Type, at index: Int) throws -> T {
        switch type {
        case is String.Type:
            guard tape.tokens[index].kind == .string || tape.tokens[index].kind == .escapedString else { throw Mismatch(what: "a string") }
            return tape.string(at: index) as! T
        case is Int.Type: return try integer(at: index) as! T
        case is Double.Type: return try double(at: index) as! T
        case is Bool.Type: return try bool(at: index) as! T
        default: return try T(from: child(index))
        }
    }

    func integer(at index: Int) throws -> Int {
        guard let value = tape.number(at: index, { text -> Int? in
            var end: UnsafeMutablePointer<CChar>?
            errno = 0
            let value = strtoll(text, &end, 10)
            return end?.pointee == 0 && errno == 0 ? Int(value) : nil
        }) else { throw Mismatch(what: "an integer") }
        return value
    }

    func double(at index: Int) throws -> Double {
        guard let value = tape.number(at: index, { text -> Double? in
            var end: UnsafeMutablePointer<CChar>?
            let value = strtod(text, &end)
            return end?.pointee == 0 ? value : nil
        }) else { throw Mismatch(what: "a number") }
        return value
    }

    func bool(at index: Int) throws -> Bool {
        switch tape.tokens[index].kind {
        case .true: true
        case .false: false
        default: throw Mismatch(what: "a Bool")
        }
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let decoder: TapeDecoder
        let object: Int
        var codingPath: [any CodingKey] { [] }

        var allKeys: [Key] {
            var keys: [Key] = []
            var cursor = object + 1
            let end = Int(decoder.tape.tokens[object].end)
            while cursor < end {
                if let key = Key(stringValue: decoder.tape.string(at: cursor)) { keys.append(key) }
                cursor = Int(decoder.tape.tokens[cursor + 1].end)
            }
            return keys
        }

        /// The index of `key`'s value, if the object has it.
        @inline(__always) func value(for key: Key) -> Int? {
            var cursor = object + 1
            let end = Int(decoder.tape.tokens[object].end)
            let name = key.stringValue
            while cursor < end {
                if decoder.tape.matches(cursor, name) { return cursor + 1 }
                cursor = Int(decoder.tape.tokens[cursor + 1].end)
            }
            return nil
        }

        func required(_ key: Key) throws -> Int {
            guard let index = value(for: key) else { throw DecodingError.keyNotFound(key, .init(codingPath: [], debugDescription: "")) }
            return index
        }

        func contains(_ key: Key) -> Bool { value(for: key) != nil }
        func decodeNil(forKey key: Key) throws -> Bool { decoder.tape.tokens[try required(key)].kind == .null }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try decoder.decodeValue(type, at: try required(key)) }

        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            guard let index = value(for: key), decoder.tape.tokens[index].kind != .null else { return nil }
            return try decoder.decodeValue(type, at: index)
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            try decoder.child(try required(key)).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try decoder.child(try required(key)).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder { decoder }
        func superDecoder(forKey key: Key) throws -> any Decoder { decoder.child(try required(key)) }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let decoder: TapeDecoder
        let array: Int
        var cursor: Int
        var currentIndex = 0
        var codingPath: [any CodingKey] { [] }
        var count: Int? { Int(decoder.tape.tokens[array].members) }
        var isAtEnd: Bool { currentIndex >= count ?? 0 }

        init(decoder: TapeDecoder, array: Int) {
            (self.decoder, self.array, self.cursor) = (decoder, array, array + 1)
        }

        mutating func next() throws -> Int {
            guard !isAtEnd else { throw DecodingError.valueNotFound(Any.self, .init(codingPath: [], debugDescription: "at the end")) }
            let index = cursor
            cursor = Int(decoder.tape.tokens[cursor].end)
            currentIndex += 1
            return index
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, decoder.tape.tokens[cursor].kind == .null else { return false }
            _ = try next()
            return true
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decodeValue(type, at: try next()) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            try decoder.child(try next()).container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try decoder.child(try next()).unkeyedContainer() }
        mutating func superDecoder() throws -> any Decoder { decoder.child(try next()) }
    }

    struct Single: SingleValueDecodingContainer {
        let decoder: TapeDecoder
        let value: Int
        var codingPath: [any CodingKey] { [] }

        func decodeNil() -> Bool { decoder.tape.tokens[value].kind == .null }
        func decode(_ type: Bool.Type) throws -> Bool { try decoder.bool(at: value) }
        func decode(_ type: String.Type) throws -> String { try decoder.decodeValue(String.self, at: value) }
        func decode(_ type: Double.Type) throws -> Double { try decoder.double(at: value) }
        func decode(_ type: Int.Type) throws -> Int { try decoder.integer(at: value) }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decodeValue(type, at: value) }
    }
}
