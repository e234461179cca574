import Foundation

/// Lets the decoder see through `Optional` to read its presence byte.
protocol DecodableOptional {
    static var wrappedDecodableType: any Decodable.Type { get }
    static func wrapping(_ value: Any) -> Self
    static var absent: Self { get }
}

extension Optional: DecodableOptional where Wrapped: Decodable {
    static var wrappedDecodableType: any Decodable.Type { Wrapped.self }
    static func wrapping(_ value: Any) -> Self { .some(value as! Wrapped) }
    static var absent: Self { nil }
}

/// A coding path kept as a linked list: building `codingPath + [key]` arrays for every nested
/// value was a noticeable share of decoding; the array is only made when something asks.
final class PathNode {
    let parent: PathNode?
    let key: any CodingKey

    init(parent: PathNode?, key: any CodingKey) {
        self.parent = parent
        self.key = key
    }

    static func path(_ node: PathNode?) -> [any CodingKey] {
        var keys: [any CodingKey] = []
        var current = node
        while let node = current {
            keys.append(node.key)
            current = node.parent
        }
        return keys.reversed()
    }
}

/// One decoding pass over a payload's bytes. Every read is bounds-checked: random or damaged
/// bytes make a `DecodingError`, never a crash.
final class BinaryDecoding {
    let bytes: UnsafeRawBufferPointer
    let names: [String]
    /// Guards against stack exhaustion on crafted input for recursive types.
    var depth = 0
    static let maximumDepth = 512

    init(bytes: UnsafeRawBufferPointer, names: [String]) {
        self.bytes = bytes
        self.names = names
    }

    func corrupt(_ path: PathNode?, _ message: String) -> DecodingError {
        .dataCorrupted(.init(codingPath: PathNode.path(path), debugDescription: message))
    }

    /// Reads a varint at `position` within `end`, advancing `position`.
    func varint(_ position: inout Int, end: Int, path: PathNode?) throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < end else { throw corrupt(path, "truncated number") }
            let byte = bytes[position]
            position += 1
            guard shift < 64 else { throw corrupt(path, "number too long") }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
    }

    /// Reads a length and returns the range it covers.
    func span(_ position: inout Int, end: Int, path: PathNode?) throws -> Range<Int> {
        let length = try varint(&position, end: end, path: path)
        guard length <= UInt64(end - position) else { throw corrupt(path, "length \(length) runs past the end") }
        defer { position += Int(length) }
        return position..<(position + Int(length))
    }

    /// Reads an entry's key: a symbol, or 0 and the key itself (a dictionary's, written inline).
    func key(_ position: inout Int, end: Int, path: PathNode?) throws -> String {
        let symbol = try varint(&position, end: end, path: path)
        guard symbol == 0 else { return try name(of: symbol, path: path) }
        let content = try span(&position, end: end, path: path)
        guard let key = ValidatedUTF8.string(UnsafeRawBufferPointer(rebasing: bytes[content])) else {
            throw corrupt(path, "a key that is not valid UTF-8")
        }
        return key
    }

    func name(of symbol: UInt64, path: PathNode?) throws -> String {
        guard symbol >= 1, symbol <= UInt64(names.count) else {
            throw corrupt(path, "unknown key symbol \(symbol) (this log knows \(names.count))")
        }
        return names[Int(symbol) - 1]
    }

    // MARK: Leaves

    func bool(_ range: Range<Int>, _ path: PathNode?) throws -> Bool {
        guard range.count == 1, bytes[range.lowerBound] <= 1 else { throw corrupt(path, "not a Bool") }
        return bytes[range.lowerBound] == 1
    }

    func unsigned(_ range: Range<Int>, _ path: PathNode?) throws -> UInt64 {
        var position = range.lowerBound
        let value = try varint(&position, end: range.upperBound, path: path)
        guard position == range.upperBound else { throw corrupt(path, "extra bytes after a number") }
        return value
    }

    func signed(_ range: Range<Int>, _ path: PathNode?) throws -> Int64 {
        VarInt.unzigzag(try unsigned(range, path))
    }

    func integer<T: FixedWidthInteger>(_ type: T.Type, _ range: Range<Int>, _ path: PathNode?) throws -> T {
        let value: T? = T.isSigned ? T(exactly: try signed(range, path)) : T(exactly: try unsigned(range, path))
        guard let value else { throw DecodingError.typeMismatch(T.self, .init(codingPath: PathNode.path(path), debugDescription: "the number does not fit \(T.self)")) }
        return value
    }

    func fixed64(_ range: Range<Int>, _ path: PathNode?) throws -> UInt64 {
        guard range.count == 8 else { throw corrupt(path, "expected 8 bytes, found \(range.count)") }
        return (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[range.lowerBound + $1]) << (8 * UInt64($1)) }
    }

    func double(_ range: Range<Int>, _ path: PathNode?) throws -> Double {
        Double(bitPattern: try fixed64(range, path))
    }

    func float(_ range: Range<Int>, _ path: PathNode?) throws -> Float {
        guard range.count == 4 else { throw corrupt(path, "expected 4 bytes, found \(range.count)") }
        let bits = (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[range.lowerBound + $1]) << (8 * UInt32($1)) }
        return Float(bitPattern: bits)
    }

    func string(_ range: Range<Int>, _ path: PathNode?) throws -> String {
        var position = range.lowerBound
        let content = try span(&position, end: range.upperBound, path: path)
        guard position == range.upperBound else { throw corrupt(path, "extra bytes after a string") }
        guard let string = ValidatedUTF8.string(UnsafeRawBufferPointer(rebasing: bytes[content])) else {
            throw corrupt(path, "a string that is not valid UTF-8")
        }
        return string
    }

    // MARK: Values

    /// Decodes any value from `range`: optionals' presence bytes, the compact special types, and
    /// the type's own `init(from:)` otherwise.
    func decode<T: Decodable>(_ type: T.Type, from range: Range<Int>, path: PathNode?) throws -> T {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { throw corrupt(path, "nested more than \(Self.maximumDepth) levels") }
        if let optional = T.self as? any DecodableOptional.Type {
            guard let first = range.first else { throw corrupt(path, "missing presence byte") }
            switch bytes[first] {
            case 0:
                guard range.count == 1 else { throw corrupt(path, "extra bytes after nil") }
                return optional.absent as! T
            case 1:
                let wrapped = try decodeOpened(optional.wrappedDecodableType, from: (first + 1)..<range.upperBound, path: path)
                return optional.wrapping(wrapped) as! T
            default:
                throw corrupt(path, "invalid presence byte \(bytes[first])")
            }
        }
        if T.self == UUID.self {
            guard range.count == 16 else { throw corrupt(path, "a UUID takes 16 bytes, found \(range.count)") }
            var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &uuid) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[range])) }
            return UUID(uuid: uuid) as! T
        }
        if T.self == Date.self {
            return Date(timeIntervalSinceReferenceDate: try double(range, path)) as! T
        }
        if T.self == Data.self {
            var position = range.lowerBound
            let content = try span(&position, end: range.upperBound, path: path)
            return Data(UnsafeRawBufferPointer(rebasing: bytes[content])) as! T
        }
        if T.self == URL.self {
            let text = try string(range, path)
            guard let url = URL(string: text) else { throw corrupt(path, "'\(text)' is not a URL") }
            return url as! T
        }
        return try T(from: ValueDecoder(decoding: self, range: range, node: path))
    }

    private func decodeOpened<W: Decodable>(_ type: W.Type, from range: Range<Int>, path: PathNode?) throws -> Any {
        try decode(type, from: range, path: path)
    }
}

/// The `Decoder` for one value's bytes.
final class ValueDecoder: Decoder {
    let decoding: BinaryDecoding
    let range: Range<Int>
    let node: PathNode?
    var codingPath: [any CodingKey] { PathNode.path(node) }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(decoding: BinaryDecoding, range: Range<Int>, node: PathNode?) {
        self.decoding = decoding
        self.range = range
        self.node = node
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(try KeyedReader<Key>(decoding: decoding, range: range, node: node))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try UnkeyedReader(decoding: decoding, range: range, node: node)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleReader(decoding: decoding, range: range, node: node)
    }
}

struct KeyedReader<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoding: BinaryDecoding
    let node: PathNode?
    var codingPath: [any CodingKey] { PathNode.path(node) }
    private var entries: [(name: String, range: Range<Int>)] = []

    init(decoding: BinaryDecoding, range: Range<Int>, node: PathNode?) throws {
        self.decoding = decoding
        self.node = node
        var position = range.lowerBound
        let count = try decoding.varint(&position, end: range.upperBound, path: node)
        guard count <= UInt64(range.count) else { throw decoding.corrupt(node, "a container claims \(count) entries in \(range.count) bytes") }
        entries.reserveCapacity(Int(count))
        for _ in 0..<count {
            let name = try decoding.key(&position, end: range.upperBound, path: node)
            entries.append((name, try decoding.span(&position, end: range.upperBound, path: node)))
        }
    }

    var allKeys: [Key] { entries.compactMap { Key(stringValue: $0.name) } }

    func contains(_ key: Key) -> Bool { entries.contains { $0.name == key.stringValue } }

    private func range(for key: Key) throws -> Range<Int> {
        let name = key.stringValue
        guard let entry = entries.first(where: { $0.name == name }) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: PathNode.path(node), debugDescription: "no value for key '\(name)'"))
        }
        return entry.range
    }

    private func path(_ key: Key) -> PathNode { PathNode(parent: node, key: key) }

    func decodeNil(forKey key: Key) throws -> Bool { try range(for: key).isEmpty }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoding.bool(range(for: key), path(key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoding.string(range(for: key), path(key)) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoding.double(range(for: key), path(key)) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decoding.float(range(for: key), path(key)) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoding.integer(type, range(for: key), path(key)) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decoding.integer(type, range(for: key), path(key)) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decoding.integer(type, range(for: key), path(key)) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decoding.integer(type, range(for: key), path(key)) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decoding.integer(type, range(for: key), path(key)) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decoding.integer(type, range(for: key), path(key)) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decoding.integer(type, range(for: key), path(key)) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decoding.integer(type, range(for: key), path(key)) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decoding.integer(type, range(for: key), path(key)) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decoding.integer(type, range(for: key), path(key)) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoding.decode(type, from: range(for: key), path: path(key))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        KeyedDecodingContainer(try KeyedReader<NestedKey>(decoding: decoding, range: range(for: key), node: path(key)))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try UnkeyedReader(decoding: decoding, range: range(for: key), node: path(key))
    }

    func superDecoder() throws -> any Decoder {
        try superDecoder(forKey: Key(stringValue: "super")!)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(decoding: decoding, range: try range(for: key), node: path(key))
    }
}

struct UnkeyedReader: UnkeyedDecodingContainer {
    let decoding: BinaryDecoding
    let node: PathNode?
    var codingPath: [any CodingKey] { PathNode.path(node) }
    let count: Int?
    private(set) var currentIndex = 0
    private var position: Int
    private let end: Int

    init(decoding: BinaryDecoding, range: Range<Int>, node: PathNode?) throws {
        self.decoding = decoding
        self.node = node
        var position = range.lowerBound
        let count = try decoding.varint(&position, end: range.upperBound, path: node)
        guard count <= UInt64(range.count) else { throw decoding.corrupt(node, "a list claims \(count) elements in \(range.count) bytes") }
        self.count = Int(count)
        self.position = position
        end = range.upperBound
    }

    var isAtEnd: Bool { currentIndex >= (count ?? 0) }

    private mutating func next() throws -> (Range<Int>, PathNode?) {
        let path = PathNode(parent: node, key: BinaryCodingKey(intValue: currentIndex))
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(Any.self, .init(codingPath: PathNode.path(path), debugDescription: "the list has only \(count ?? 0) elements"))
        }
        let range = try decoding.span(&position, end: end, path: path)
        currentIndex += 1
        return (range, path)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { return false }
        var probe = position
        let length = try decoding.varint(&probe, end: end, path: node)
        guard length == 0 else { return false }
        position = probe
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { let (r, p) = try next(); return try decoding.bool(r, p) }
    mutating func decode(_ type: String.Type) throws -> String { let (r, p) = try next(); return try decoding.string(r, p) }
    mutating func decode(_ type: Double.Type) throws -> Double { let (r, p) = try next(); return try decoding.double(r, p) }
    mutating func decode(_ type: Float.Type) throws -> Float { let (r, p) = try next(); return try decoding.float(r, p) }
    mutating func decode(_ type: Int.Type) throws -> Int { let (r, p) = try next(); return try decoding.integer(type, r, p) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { let (r, p) = try next(); return try decoding.integer(type, r, p) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { let (r, p) = try next(); return try decoding.integer(type, r, p) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { let (r, p) = try next(); return try decoding.integer(type, r, p) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { let (r, p) = try next(); return try decoding.integer(type, r, p) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { let (r, p) = try next(); return try decoding.integer(type, r, p) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { let (r, p) = try next(); return try decoding.integer(type, r, p) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { let (r, p) = try next(); return try decoding.integer(type, r, p) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { let (r, p) = try next(); return try decoding.integer(type, r, p) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { let (r, p) = try next(); return try decoding.integer(type, r, p) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (range, path) = try next()
        return try decoding.decode(type, from: range, path: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (range, path) = try next()
        return KeyedDecodingContainer(try KeyedReader<NestedKey>(decoding: decoding, range: range, node: path))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (range, path) = try next()
        return try UnkeyedReader(decoding: decoding, range: range, node: path)
    }

    mutating func superDecoder() throws -> any Decoder {
        let (range, path) = try next()
        return ValueDecoder(decoding: decoding, range: range, node: path)
    }
}

struct SingleReader: SingleValueDecodingContainer {
    let decoding: BinaryDecoding
    let range: Range<Int>
    let node: PathNode?
    var codingPath: [any CodingKey] { PathNode.path(node) }

    func decodeNil() -> Bool { range.isEmpty }
    func decode(_ type: Bool.Type) throws -> Bool { try decoding.bool(range, node) }
    func decode(_ type: String.Type) throws -> String { try decoding.string(range, node) }
    func decode(_ type: Double.Type) throws -> Double { try decoding.double(range, node) }
    func decode(_ type: Float.Type) throws -> Float { try decoding.float(range, node) }
    func decode(_ type: Int.Type) throws -> Int { try decoding.integer(type, range, node) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoding.integer(type, range, node) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoding.integer(type, range, node) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoding.integer(type, range, node) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoding.integer(type, range, node) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoding.integer(type, range, node) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoding.integer(type, range, node) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoding.integer(type, range, node) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoding.integer(type, range, node) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoding.integer(type, range, node) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoding.decode(type, from: range, path: node) }
}
