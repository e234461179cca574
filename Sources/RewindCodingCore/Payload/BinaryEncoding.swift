import Foundation

/// Lets the coders see through `Optional` and write a presence byte, so nested optionals
/// (`Int??`) keep every level.
protocol EncodableOptional {
    var wrappedEncodable: (any Encodable)? { get }
}

extension Optional: EncodableOptional where Wrapped: Encodable {
    var wrappedEncodable: (any Encodable)? { map { $0 } }
}

/// One encoding pass: an arena of leaf bytes, the tree of containers over it, and the symbol
/// look-ups. The tree is needed because Swift's `Encoder` never says when a container is done,
/// so the lengths that prefix each entry are only known once the whole value has been encoded.
final class BinaryEncoding {
    enum Value {
        case unset
        case leaf(start: Int, end: Int)
        case container(Container)
    }

    final class Container {
        let isKeyed: Bool
        var items: [(symbol: UInt32, value: Value)] = []
        /// A dictionary's keys, written inline (each a string in the arena) after the symbol 0
        /// that marks an inline key; `nil` for containers keyed by symbols.
        var inlineKeys: [Range<Int>]?
        /// The serialised size, once measured.
        var size = 0
        init(isKeyed: Bool) { self.isKeyed = isKeyed }

        /// A keyed container for keys of type `Key`: inline keys for a dictionary's.
        static func keyed<Key: CodingKey>(by key: Key.Type) -> Container {
            let container = Container(isKeyed: true)
            if DictionaryKeys.areDictionaryKeys(key) { container.inlineKeys = [] }
            return container
        }
    }

    var arena: [UInt8] = []
    /// The symbols known when the pass began; `added` holds those it interned itself.
    private let known: SymbolIndex
    private var added: [String: UInt32] = [:]
    private let table: SymbolTable

    init(table: SymbolTable) {
        self.table = table
        known = table.index
    }

    func symbol(for key: some CodingKey) -> UInt32 {
        symbol(for: key.stringValue)
    }

    /// Writes a dictionary key (its length and UTF-8) and returns where it is.
    func inlineKey(_ key: String) -> Range<Int> {
        let start = arena.count
        Self.append(key, to: &arena)
        return start..<arena.count
    }

    /// Writes leaf bytes and returns where they are.
    func leaf(_ write: (inout [UInt8]) -> Void) -> Value {
        let start = arena.count
        write(&arena)
        return .leaf(start: start, end: arena.count)
    }

    /// Encodes any value: special cases for compactness, presence bytes for optionals, and the
    /// value's own `encode(to:)` otherwise.
    func encode<T: Encodable>(_ value: T, codingPath: [any CodingKey]) throws -> Value {
        if let optional = value as? any EncodableOptional {
            guard let wrapped = optional.wrappedEncodable else { return leaf { $0.append(0) } }
            let inner = try encode(wrapped, codingPath: codingPath)
            // The presence byte goes in front of the wrapped value, inside one leaf or container.
            let container = Container(isKeyed: false)
            container.items = [(0, leaf { $0.append(1) }), (0, inner)]
            return .container(PresenceContainer.mark(container))
        }
        if T.self == UUID.self {
            let uuid = (value as! UUID).uuid
            return leaf { bytes in withUnsafeBytes(of: uuid) { bytes.append(contentsOf: $0) } }
        }
        if T.self == Date.self {
            let bits = (value as! Date).timeIntervalSinceReferenceDate.bitPattern
            return leaf { bytes in withUnsafeBytes(of: bits.littleEndian) { bytes.append(contentsOf: $0) } }
        }
        if T.self == Data.self {
            let data = value as! Data
            return leaf { bytes in
                VarInt.append(UInt64(data.count), to: &bytes)
                bytes.append(contentsOf: data)
            }
        }
        if T.self == URL.self {
            let text = (value as! URL).absoluteString
            return leaf { bytes in Self.append(text, to: &bytes) }
        }
        let encoder = ValueEncoder(encoding: self, codingPath: codingPath)
        try value.encode(to: encoder)
        return encoder.value
    }

    static func append(_ string: String, to bytes: inout [UInt8]) {
        var string = string
        string.withUTF8 { utf8 in
            VarInt.append(UInt64(utf8.count), to: &bytes)
            bytes.append(contentsOf: utf8)
        }
    }

    // MARK: Serialising the tree

    /// The bytes of `value`: sizes first (each container keeps its own), then the bytes.
    func serialize(_ value: Value) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(measure(value))
        write(value, to: &output)
        return output
    }

    /// Measures `value` and every container in it, remembering each container's size.
    private func measure(_ value: Value) -> Int {
        switch value {
        case .unset: return 0
        case let .leaf(start, end): return end - start
        case let .container(container):
            if PresenceContainer.isMarked(container) {
                container.size = container.items.reduce(0) { $0 + measure($1.value) }
                return container.size
            }
            var total = VarInt.size(of: UInt64(container.items.count))
            for (index, item) in container.items.enumerated() {
                let length = measure(item.value)
                if let keys = container.inlineKeys {
                    total += 1 + keys[index].count
                } else if container.isKeyed {
                    total += VarInt.size(of: UInt64(item.symbol))
                }
                total += VarInt.size(of: UInt64(length)) + length
            }
            container.size = total
            return total
        }
    }

    private func write(_ value: Value, to output: inout [UInt8]) {
        switch value {
        case .unset: break
        case let .leaf(start, end): output.append(contentsOf: arena[start..<end])
        case let .container(container):
            if PresenceContainer.isMarked(container) {
                for item in container.items { write(item.value, to: &output) }
                return
            }
            VarInt.append(UInt64(container.items.count), to: &output)
            for (index, item) in container.items.enumerated() {
                if let keys = container.inlineKeys {
                    output.append(0)
                    output.append(contentsOf: arena[keys[index]])
                } else if container.isKeyed {
                    VarInt.append(UInt64(item.symbol), to: &output)
                }
                VarInt.append(UInt64(length(of: item.value)), to: &output)
                write(item.value, to: &output)
            }
        }
    }

    private func length(of value: Value) -> Int {
        switch value {
        case .unset: return 0
        case let .leaf(start, end): return end - start
        case let .container(container): return container.size
        }
    }
}

/// A presence byte and the value it marks, written back to back with no header of their own.
enum PresenceContainer {
    /// Presence containers are told apart by this symbol on their first item.
    static let marker = UInt32.max

    static func mark(_ container: BinaryEncoding.Container) -> BinaryEncoding.Container {
        container.items[0].symbol = marker
        return container
    }

    static func isMarked(_ container: BinaryEncoding.Container) -> Bool {
        container.items.first?.symbol == marker
    }
}

/// The `Encoder` for one value slot.
final class ValueEncoder: Encoder {
    let encoding: BinaryEncoding
    var value: BinaryEncoding.Value = .unset
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(encoding: BinaryEncoding, codingPath: [any CodingKey]) {
        self.encoding = encoding
        self.codingPath = codingPath
    }

    /// The container already in this slot if it is of the same kind (a type may ask twice),
    /// or a new one from `make`.
    private func container(keyed: Bool, _ make: () -> BinaryEncoding.Container) -> BinaryEncoding.Container {
        if case let .container(existing) = value, existing.isKeyed == keyed, !PresenceContainer.isMarked(existing) { return existing }
        let container = make()
        value = .container(container)
        return container
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let container = container(keyed: true) { .keyed(by: type) }
        return KeyedEncodingContainer(KeyedWriter<Key>(encoding: encoding, container: container, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        UnkeyedWriter(encoding: encoding, container: container(keyed: false) { BinaryEncoding.Container(isKeyed: false) }, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleWriter(encoding: encoding, codingPath: codingPath) { [self] in value = $0 }
    }
}

/// Leaf encodings shared by the three container kinds.
enum Leaf {
    static func bool(_ value: Bool) -> (inout [UInt8]) -> Void { { $0.append(value ? 1 : 0) } }
    static func signed(_ value: Int64) -> (inout [UInt8]) -> Void { { VarInt.append(VarInt.zigzag(value), to: &$0) } }
    static func unsigned(_ value: UInt64) -> (inout [UInt8]) -> Void { { VarInt.append(value, to: &$0) } }
    static func double(_ value: Double) -> (inout [UInt8]) -> Void {
        { bytes in withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) } }
    }
    static func float(_ value: Float) -> (inout [UInt8]) -> Void {
        { bytes in withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) } }
    }
    static func string(_ value: String) -> (inout [UInt8]) -> Void { { BinaryEncoding.append(value, to: &$0) } }
}

struct KeyedWriter<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoding: BinaryEncoding
    let container: BinaryEncoding.Container
    let codingPath: [any CodingKey]

    private func add(_ key: Key, _ value: BinaryEncoding.Value) {
        if container.inlineKeys != nil {
            container.inlineKeys?.append(encoding.inlineKey(key.stringValue))
            container.items.append((0, value))
        } else {
            container.items.append((encoding.symbol(for: key), value))
        }
    }

    mutating func encodeNil(forKey key: Key) throws { add(key, .leaf(start: 0, end: 0)) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { add(key, encoding.leaf(Leaf.bool(value))) }
    mutating func encode(_ value: String, forKey key: Key) throws { add(key, encoding.leaf(Leaf.string(value))) }
    mutating func encode(_ value: Double, forKey key: Key) throws { add(key, encoding.leaf(Leaf.double(value))) }
    mutating func encode(_ value: Float, forKey key: Key) throws { add(key, encoding.leaf(Leaf.float(value))) }
    mutating func encode(_ value: Int, forKey key: Key) throws { add(key, encoding.leaf(Leaf.signed(Int64(value)))) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { add(key, encoding.leaf(Leaf.signed(Int64(value)))) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { add(key, encoding.leaf(Leaf.signed(Int64(value)))) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { add(key, encoding.leaf(Leaf.signed(Int64(value)))) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { add(key, encoding.leaf(Leaf.signed(value))) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { add(key, encoding.leaf(Leaf.unsigned(UInt64(value)))) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { add(key, encoding.leaf(Leaf.unsigned(UInt64(value)))) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { add(key, encoding.leaf(Leaf.unsigned(UInt64(value)))) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { add(key, encoding.leaf(Leaf.unsigned(UInt64(value)))) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { add(key, encoding.leaf(Leaf.unsigned(value))) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        add(key, try encoding.encode(value, codingPath: codingPath + [key]))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = BinaryEncoding.Container.keyed(by: keyType)
        add(key, .container(nested))
        return KeyedEncodingContainer(KeyedWriter<NestedKey>(encoding: encoding, container: nested, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = BinaryEncoding.Container(isKeyed: false)
        add(key, .container(nested))
        return UnkeyedWriter(encoding: encoding, container: nested, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder { superEncoder(forKey: Key(stringValue: "super")!) }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let encoder = ValueEncoder(encoding: encoding, codingPath: codingPath + [key])
        let slot = BinaryEncoding.Container(isKeyed: false)
        add(key, .container(slot))
        return SlotEncoder(encoder: encoder, slot: slot)
    }
}

struct UnkeyedWriter: UnkeyedEncodingContainer {
    let encoding: BinaryEncoding
    let container: BinaryEncoding.Container
    let codingPath: [any CodingKey]
    var count: Int { container.items.count }

    private func add(_ value: BinaryEncoding.Value) { container.items.append((0, value)) }
    private var indexKey: any CodingKey { BinaryCodingKey(intValue: count) }

    mutating func encodeNil() throws { add(.leaf(start: 0, end: 0)) }
    mutating func encode(_ value: Bool) throws { add(encoding.leaf(Leaf.bool(value))) }
    mutating func encode(_ value: String) throws { add(encoding.leaf(Leaf.string(value))) }
    mutating func encode(_ value: Double) throws { add(encoding.leaf(Leaf.double(value))) }
    mutating func encode(_ value: Float) throws { add(encoding.leaf(Leaf.float(value))) }
    mutating func encode(_ value: Int) throws { add(encoding.leaf(Leaf.signed(Int64(value)))) }
    mutating func encode(_ value: Int8) throws { add(encoding.leaf(Leaf.signed(Int64(value)))) }
    mutating func encode(_ value: Int16) throws { add(encoding.leaf(Leaf.signed(Int64(value)))) }
    mutating func encode(_ value: Int32) throws { add(encoding.leaf(Leaf.signed(Int64(value)))) }
    mutating func encode(_ value: Int64) throws { add(encoding.leaf(Leaf.signed(value))) }
    mutating func encode(_ value: UInt) throws { add(encoding.leaf(Leaf.unsigned(UInt64(value)))) }
    mutating func encode(_ value: UInt8) throws { add(encoding.leaf(Leaf.unsigned(UInt64(value)))) }
    mutating func encode(_ value: UInt16) throws { add(encoding.leaf(Leaf.unsigned(UInt64(value)))) }
    mutating func encode(_ value: UInt32) throws { add(encoding.leaf(Leaf.unsigned(UInt64(value)))) }
    mutating func encode(_ value: UInt64) throws { add(encoding.leaf(Leaf.unsigned(value))) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        add(try encoding.encode(value, codingPath: codingPath + [indexKey]))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = BinaryEncoding.Container.keyed(by: keyType)
        let path = codingPath + [indexKey]
        add(.container(nested))
        return KeyedEncodingContainer(KeyedWriter<NestedKey>(encoding: encoding, container: nested, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = BinaryEncoding.Container(isKeyed: false)
        let path = codingPath + [indexKey]
        add(.container(nested))
        return UnkeyedWriter(encoding: encoding, container: nested, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let encoder = ValueEncoder(encoding: encoding, codingPath: codingPath + [indexKey])
        let slot = BinaryEncoding.Container(isKeyed: false)
        add(.container(slot))
        return SlotEncoder(encoder: encoder, slot: slot)
    }
}

/// A single-value container: stores the one value it is given wherever `store` says.
struct SingleWriter: SingleValueEncodingContainer {
    let encoding: BinaryEncoding
    let codingPath: [any CodingKey]
    let store: (BinaryEncoding.Value) -> Void

    private func set(_ write: (inout [UInt8]) -> Void) { store(encoding.leaf(write)) }

    mutating func encodeNil() throws { store(.leaf(start: 0, end: 0)) }
    mutating func encode(_ value: Bool) throws { set(Leaf.bool(value)) }
    mutating func encode(_ value: String) throws { set(Leaf.string(value)) }
    mutating func encode(_ value: Double) throws { set(Leaf.double(value)) }
    mutating func encode(_ value: Float) throws { set(Leaf.float(value)) }
    mutating func encode(_ value: Int) throws { set(Leaf.signed(Int64(value))) }
    mutating func encode(_ value: Int8) throws { set(Leaf.signed(Int64(value))) }
    mutating func encode(_ value: Int16) throws { set(Leaf.signed(Int64(value))) }
    mutating func encode(_ value: Int32) throws { set(Leaf.signed(Int64(value))) }
    mutating func encode(_ value: Int64) throws { set(Leaf.signed(value)) }
    mutating func encode(_ value: UInt) throws { set(Leaf.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt8) throws { set(Leaf.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt16) throws { set(Leaf.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt32) throws { set(Leaf.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt64) throws { set(Leaf.unsigned(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        store(try encoding.encode(value, codingPath: codingPath))
    }
}

/// A `superEncoder` slot: whatever is encoded into it lands inside the parent's entry.
final class SlotEncoder: Encoder {
    let encoder: ValueEncoder
    let slot: BinaryEncoding.Container
    var codingPath: [any CodingKey] { encoder.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(encoder: ValueEncoder, slot: BinaryEncoding.Container) {
        self.encoder = encoder
        self.slot = slot
        // The slot holds the value written through `encoder`, with no header of its own.
        slot.items = [(PresenceContainer.marker, .leaf(start: 0, end: 0))]
    }

    private func attach() { slot.items = [(PresenceContainer.marker, .leaf(start: 0, end: 0)), (0, encoder.value)] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        defer { attach() }
        return encoder.container(keyedBy: type)
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        defer { attach() }
        return encoder.unkeyedContainer()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleWriter(encoding: encoder.encoding, codingPath: codingPath) { [self] in set($0) }
    }

    fileprivate func set(_ value: BinaryEncoding.Value) {
        encoder.value = value
        attach()
    }
}

/// Generated code (`@BinaryCodable`) writes through the same pass: its keys come from the same
/// symbols, and its fields whose types are only `Codable` are encoded here.
extension BinaryEncoding: BinaryEncodingContext {
    @usableFromInline
    func symbol(for key: String) -> UInt32 {
        if let id = known.id(for: key) ?? added[key] { return id }
        let id = table.id(for: key)
        added[key] = id
        return id
    }

    @usableFromInline
    func encodeWithCodable<T: Encodable>(_ value: T, into bytes: inout [UInt8]) throws {
        let start = arena.count
        bytes.append(contentsOf: serialize(try encode(value, codingPath: [])))
        // The leaves are in `bytes` now; the arena can forget them.
        arena.removeSubrange(start...)
    }
}
