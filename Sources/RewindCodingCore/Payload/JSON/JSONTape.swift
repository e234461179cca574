#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One JSON value on a ``JSONTape``: its kind, where its text is, and which token follows it.
///
/// 20 bytes, so an action's tape fits on the stack (see ``JSONTape/withTape(of:_:)``).
@usableFromInline
struct JSONToken {
    @usableFromInline
    enum Kind: UInt8 {
        case object, array, string, number, `true`, `false`, null
    }

    /// The value's first byte (a string's opening quote).
    @usableFromInline var start: UInt32
    /// The value's bytes, through its closing quote or bracket.
    @usableFromInline var length: UInt32
    /// The index of the token after this value and everything inside it.
    @usableFromInline var next: UInt32
    /// An object's members or an array's elements.
    @usableFromInline var count: UInt32
    @usableFromInline var kind: Kind
    /// A string: it holds an escape or a byte above ASCII, so its bytes are not its value's
    /// ASCII spelling. A number: it has a fraction or an exponent.
    @usableFromInline var isComplex: Bool
}

/// A one-pass index of a JSON document for ``JSONReader``: each value's kind and place, and for
/// an object or array where it ends, so generated readers find keys by comparing bytes and skip
/// values without parsing them again.
///
/// The tape accepts strict RFC 8259 JSON only, nested at most ``maximumDepth`` levels and at
/// most ``maximumSize`` bytes long. Anything else — JSON Foundation's decoder would take (a
/// trailing comma, a byte-order mark) or would refuse — makes no tape, and the codec hands the
/// payload to Foundation's decoder, whose value or error is then the answer. So the tape never needs to agree with Foundation on what is
/// valid, only to accept nothing Foundation refuses; unread strings are not checked for UTF-8 or
/// surrogate pairs (Foundation, too, reads them only when asked).
@usableFromInline
struct JSONTape {
    /// Deeper documents go to Foundation's decoder (which refuses more than 512 levels).
    static let maximumDepth = 256
    /// Larger documents too.
    @usableFromInline static let maximumSize = 16 << 20

    private let bytes: UnsafeRawBufferPointer
    private let tokens: UnsafeMutableBufferPointer<JSONToken>
    private var count = 0
    private var offset = 0
    private var depth = 0

    private struct Refused: Error {}

    private init(bytes: UnsafeRawBufferPointer, tokens: UnsafeMutableBufferPointer<JSONToken>) {
        self.bytes = bytes
        self.tokens = tokens
    }

    /// Calls `body` with the tape of `bytes`, or returns `nil` when they are not strict JSON
    /// (the caller then asks Foundation). The tokens live only for the call.
    @usableFromInline
    static func withTape<T>(of bytes: UnsafeRawBufferPointer, _ body: (UnsafeBufferPointer<JSONToken>) -> T?) -> T? {
        // Past 16 MB (no action, and few states), Foundation's decoder alone: the tape takes up
        // to ten times the payload's size.
        guard !bytes.isEmpty, bytes.count <= maximumSize else { return nil }
        // A whole value of n bytes holds at most (n + 1) / 2 tokens: a scalar takes a byte, a
        // container its two brackets and a separator between each two of its values. (One cut
        // short may start more, and is refused when it does: see `append`.)
        let capacity = (bytes.count + 1) / 2
        func run(_ tokens: UnsafeMutableBufferPointer<JSONToken>) -> T? {
            var tape = JSONTape(bytes: bytes, tokens: tokens)
            do {
                try tape.value()
                tape.skipSpace()
                guard tape.offset == bytes.count else { return nil }
            } catch {
                return nil
            }
            return body(UnsafeBufferPointer(rebasing: tokens[..<tape.count]))
        }
        // An action's tape (at most 20 KB) may go on the stack; a large state's goes on the
        // heap, leaving the stack to the readers' recursion.
        guard bytes.count > 2_048 else { return withUnsafeTemporaryAllocation(of: JSONToken.self, capacity: capacity, run) }
        let tokens = UnsafeMutableBufferPointer<JSONToken>.allocate(capacity: capacity)
        defer { tokens.deallocate() }
        return run(tokens)
    }

    private mutating func skipSpace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x09, 0x0A, 0x0D: offset += 1
            default: return
            }
        }
    }

    private mutating func append(_ kind: JSONToken.Kind, from start: Int, isComplex: Bool = false) throws -> Int {
        // Only a document cut short holds more tokens than a whole one could (`[0,0,0` or
        // `[[[[`): refused here, before the buffer runs out.
        guard count < tokens.count else { throw Refused() }
        let index = count
        tokens[index] = JSONToken(
            start: UInt32(start), length: UInt32(offset - start), next: UInt32(index + 1), count: 0, kind: kind, isComplex: isComplex
        )
        count += 1
        return index
    }

    private mutating func value() throws {
        skipSpace()
        guard offset < bytes.count else { throw Refused() }
        switch bytes[offset] {
        case UInt8(ascii: "{"): try container(object: true)
        case UInt8(ascii: "["): try container(object: false)
        case UInt8(ascii: "\""): try string()
        case UInt8(ascii: "t"): try literal("true", .true)
        case UInt8(ascii: "f"): try literal("false", .false)
        case UInt8(ascii: "n"): try literal("null", .null)
        default: try number()
        }
    }

    private mutating func literal(_ word: StaticString, _ kind: JSONToken.Kind) throws {
        let length = word.utf8CodeUnitCount
        guard bytes.count - offset >= length, memcmp(bytes.baseAddress! + offset, word.utf8Start, length) == 0 else { throw Refused() }
        let start = offset
        offset += length
        _ = try append(kind, from: start)
    }

    /// A string: raw control characters and escapes JSON does not have refused; what an escape
    /// means (a surrogate's pair, say) is read when the string is.
    private mutating func string() throws {
        let start = offset
        offset += 1
        var isComplex = false
        while true {
            guard offset < bytes.count else { throw Refused() }
            let byte = bytes[offset]
            // Literals, not `UInt8(ascii:)`, for the bytes every string's every byte is tested
            // against: a debug build calls the initializer each time (see `JSONWriter`).
            if byte == 0x22 { break }  // "
            if byte < 0x20 { throw Refused() }
            if byte == 0x5C {          // \
                // Only the escapes JSON has, `\u` with four hex digits: Foundation checks
                // those even in strings it never reads (found by fuzz-json-payload).
                isComplex = true
                guard offset + 1 < bytes.count else { throw Refused() }
                switch bytes[offset + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                     UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    offset += 2
                case UInt8(ascii: "u"):
                    guard bytes.count - offset >= 6 else { throw Refused() }
                    for digit in bytes[(offset + 2)..<(offset + 6)] where !digit.isHexDigit { throw Refused() }
                    offset += 6
                default:
                    throw Refused()
                }
                continue
            }
            if byte >= 0x80 { isComplex = true }
            offset += 1
        }
        offset += 1
        _ = try append(.string, from: start, isComplex: isComplex)
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, nothing looser.
    private mutating func number() throws {
        let start = offset
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "-") { offset += 1 }
        guard offset < bytes.count, isDigit(bytes[offset]) else { throw Refused() }
        if bytes[offset] == UInt8(ascii: "0") {
            offset += 1
        } else {
            skipDigits()
        }
        var isComplex = false
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            offset += 1
            guard offset < bytes.count, isDigit(bytes[offset]) else { throw Refused() }
            skipDigits()
            isComplex = true
        }
        if offset < bytes.count, bytes[offset] | 0x20 == UInt8(ascii: "e") {
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") { offset += 1 }
            guard offset < bytes.count, isDigit(bytes[offset]) else { throw Refused() }
            skipDigits()
            isComplex = true
        }
        _ = try append(.number, from: start, isComplex: isComplex)
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }


    private mutating func skipDigits() {
        while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
    }

    private mutating func container(object: Bool) throws {
        depth += 1
        guard depth <= Self.maximumDepth else { throw Refused() }
        let start = offset
        let index = try append(object ? .object : .array, from: start)
        offset += 1
        let close = UInt8(ascii: object ? "}" : "]")
        var members: UInt32 = 0
        skipSpace()
        if offset < bytes.count, bytes[offset] == close {
            offset += 1
        } else {
            while true {
                if object {
                    skipSpace()
                    guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { throw Refused() }
                    try string()
                    skipSpace()
                    guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else { throw Refused() }
                    offset += 1
                }
                try value()
                members += 1
                skipSpace()
                guard offset < bytes.count else { throw Refused() }
                if bytes[offset] == UInt8(ascii: ",") {
                    offset += 1
                    continue
                }
                guard bytes[offset] == close else { throw Refused() }
                offset += 1
                break
            }
        }
        tokens[index].length = UInt32(offset - start)
        tokens[index].next = UInt32(count)
        tokens[index].count = members
        depth -= 1
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        self &- UInt8(ascii: "0") < 10 || (self | 0x20) &- UInt8(ascii: "a") < 6
    }
}
