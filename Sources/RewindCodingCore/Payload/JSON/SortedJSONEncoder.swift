package import Foundation

/// Encodes values as JSON byte for byte as Foundation's `JSONEncoder` does with `.sortedKeys`
/// and its default strategies (dates as seconds since 2001, data as Base64, non-finite numbers
/// refused), in less time: the JSON codec's encoding, which the recorder's writer runs for
/// every action and snapshot.
///
/// Written by hand because it measurably must be faster: the recorder's JSON throughput was
/// bound by Foundation's encoder (rewind-bench's README, "The JSON codec's own encoder", has
/// the figures). Foundation boxes every value through dynamic casts for its special types and
/// allocates objects and dictionaries for every container; this encoder compares metatypes,
/// and builds the value in one array of nodes that it keeps from one value to the next.
/// Decoding is Foundation's `JSONDecoder`, or generated readers that give what it gives
/// (`JSONReader`); types with generated code are encoded by it too, into the same bytes
/// (`JSONWriter`), with this encoder as the reference it falls back to. `SortedJSONEncoderTests` checks the bytes
/// against Foundation's over the example apps' sessions and the edges of each kind of value.
///
/// Use one for a run of values on one thread, as `PayloadEncoder` says. The portable export
/// writes its lines with one too (`ExportFileWriter`): the same bytes as the JSON codec's.
package final class SortedJSONEncoder {
    private let tree: JSONTree
    private var bytes: [UInt8] = []
    /// The size of the last value's JSON: a large value's buffer is reserved at about it (a
    /// recorder's snapshots grow little from one to the next).
    private var lastSize = 0

    /// - Parameter compactionThreshold: how many nodes the value's tree may hold before
    ///   finished values are written as they come (`JSONTree`); tests lower it to write every
    ///   value that way.
    package init(compactionThreshold: Int = 4_096) {
        tree = JSONTree(compactionThreshold: compactionThreshold)
    }

    /// The JSON of `value`.
    ///
    /// - Throws: `EncodingError.invalidValue` for a non-finite number, a value that encodes
    ///   nothing at the top level, or what the value's own `encode(to:)` throws.
    package func encode<Value: Encodable>(_ value: Value) throws -> Data {
        tree.reset(expectedSize: lastSize)
        try NodeEncoder(tree: tree, node: 0).encodeValue(value)
        if case .unset = tree.kind(of: 0) {
            throw EncodingError.invalidValue(value, EncodingError.Context(codingPath: [], debugDescription: "Top-level \(Value.self) did not encode any values."))
        }
        // A large value written as it went is, most often, its own output already.
        if tree.writeRootInPlace() {
            let output = tree.takeOutput()
            lastSize = output.count
            tree.releaseLargeBuffers()
            return output
        }
        bytes.removeAll(keepingCapacity: true)
        bytes.reserveCapacity(tree.estimatedSize())
        tree.write(into: &bytes)
        lastSize = bytes.count
        tree.releaseLargeBuffers()
        defer { if bytes.capacity > JSONTree.keptCapacity { bytes = [] } }
        return Data(bytes)
    }

    /// Appends the JSON of `value` as a member or element of a container: one that encodes
    /// nothing is `{}`, as Foundation writes it there. ``JSONWriter`` writes the fields of
    /// generated code that have no generated code of their own with it.
    package func encodeNested<Value: Encodable>(_ value: Value, into output: inout [UInt8]) throws {
        tree.reset()
        defer { tree.releaseLargeBuffers() }
        try NodeEncoder(tree: tree, node: 0).encodeValue(value)
        if tree.writeRootInPlace() {
            output.append(contentsOf: tree.takeOutput())
        } else {
            tree.write(into: &output)
        }
    }

    /// The encoder one value encodes itself through: the node it fills in the tree. A struct of
    /// two words, so handing it to `encode(to:)` as `any Encoder` allocates nothing.
    struct NodeEncoder: Encoder {
        let tree: JSONTree
        let node: Int32

        var codingPath: [any CodingKey] { tree.codingPath(of: node) }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            tree.becomeContainer(node, object: true)
            return KeyedEncodingContainer(KeyedContainer(tree: tree, node: node))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            tree.becomeContainer(node, object: false)
            return UnkeyedContainer(tree: tree, node: node)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer {
            SingleValueContainer(tree: tree, node: node)
        }

        /// Encodes `value` into this encoder's node. Foundation's special types are compared
        /// by metatype, not cast to; other values encode themselves.
        func encodeValue<Value: Encodable>(_ value: Value) throws {
            if Value.self == String.self { return tree.setKind(.string(value as! String), of: node) }
            if Value.self == Int.self { return tree.setKind(.number(String(value as! Int)), of: node) }
            if Value.self == Double.self { return tree.setKind(try number(value as! Double), of: node) }
            if Value.self == Bool.self { return tree.setKind(.bool(value as! Bool), of: node) }
            if Value.self == Data.self { return tree.setKind(.string((value as! Data).base64EncodedString()), of: node) }
            if Value.self == URL.self { return tree.setKind(.string((value as! URL).absoluteString), of: node) }
            if Value.self == Decimal.self { return tree.setKind(.number((value as! Decimal).description), of: node) }
            let mark = tree.mark()
            try value.encode(to: self)
            tree.finish(node, from: mark)
        }

        /// A finite number as Foundation writes it; a non-finite one refused as Foundation
        /// refuses it by default, naming where it is.
        func number<F: BinaryFloatingPoint & LosslessStringConvertible & Encodable>(_ value: F) throws -> JSONTree.Kind {
            guard value.isFinite else {
                throw EncodingError.invalidValue(value, EncodingError.Context(
                    codingPath: codingPath, debugDescription: "Unable to encode \(F.self).\(value) directly in JSON."
                ))
            }
            return .number(JSONTree.number(value))
        }
    }

    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let tree: JSONTree
        let node: Int32

        var codingPath: [any CodingKey] { tree.codingPath(of: node) }

        /// A new member's encoder.
        private func member(_ key: Key) -> NodeEncoder {
            NodeEncoder(tree: tree, node: tree.append(.unset, key: key.stringValue, to: node))
        }

        private func set(_ kind: JSONTree.Kind, _ key: Key) {
            tree.append(kind, key: key.stringValue, to: node)
        }

        mutating func encodeNil(forKey key: Key) { set(.null, key) }
        mutating func encode(_ value: Bool, forKey key: Key) { set(.bool(value), key) }
        mutating func encode(_ value: String, forKey key: Key) { set(.string(value), key) }
        mutating func encode(_ value: Double, forKey key: Key) throws { let encoder = member(key); tree.setKind(try encoder.number(value), of: encoder.node) }
        mutating func encode(_ value: Float, forKey key: Key) throws { let encoder = member(key); tree.setKind(try encoder.number(value), of: encoder.node) }
        mutating func encode(_ value: Int, forKey key: Key) { set(.number(String(value)), key) }
        mutating func encode(_ value: Int8, forKey key: Key) { set(.number(String(value)), key) }
        mutating func encode(_ value: Int16, forKey key: Key) { set(.number(String(value)), key) }
        mutating func encode(_ value: Int32, forKey key: Key) { set(.number(String(value)), key) }
        mutating func encode(_ value: Int64, forKey key: Key) { set(.number(String(value)), key) }
        mutating func encode(_ value: UInt, forKey key: Key) { set(.number(String(value)), key) }
        mutating func encode(_ value: UInt8, forKey key: Key) { set(.number(String(value)), key) }
        mutating func encode(_ value: UInt16, forKey key: Key) { set(.number(String(value)), key) }
        mutating func encode(_ value: UInt32, forKey key: Key) { set(.number(String(value)), key) }
        mutating func encode(_ value: UInt64, forKey key: Key) { set(.number(String(value)), key) }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            try member(key).encodeValue(value)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            member(key).container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            member(key).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder {
            NodeEncoder(tree: tree, node: tree.append(.unset, key: "super", to: node))
        }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            member(key)
        }
    }

    struct UnkeyedContainer: UnkeyedEncodingContainer {
        let tree: JSONTree
        let node: Int32

        var codingPath: [any CodingKey] { tree.codingPath(of: node) }
        var count: Int { tree.childCount(of: node) }

        /// A new element's encoder.
        private func element() -> NodeEncoder {
            NodeEncoder(tree: tree, node: tree.append(.unset, to: node))
        }

        private func add(_ kind: JSONTree.Kind) {
            tree.append(kind, to: node)
        }

        mutating func encodeNil() { add(.null) }
        mutating func encode(_ value: Bool) { add(.bool(value)) }
        mutating func encode(_ value: String) { add(.string(value)) }
        mutating func encode(_ value: Double) throws { let encoder = element(); tree.setKind(try encoder.number(value), of: encoder.node) }
        mutating func encode(_ value: Float) throws { let encoder = element(); tree.setKind(try encoder.number(value), of: encoder.node) }
        mutating func encode(_ value: Int) { add(.number(String(value))) }
        mutating func encode(_ value: Int8) { add(.number(String(value))) }
        mutating func encode(_ value: Int16) { add(.number(String(value))) }
        mutating func encode(_ value: Int32) { add(.number(String(value))) }
        mutating func encode(_ value: Int64) { add(.number(String(value))) }
        mutating func encode(_ value: UInt) { add(.number(String(value))) }
        mutating func encode(_ value: UInt8) { add(.number(String(value))) }
        mutating func encode(_ value: UInt16) { add(.number(String(value))) }
        mutating func encode(_ value: UInt32) { add(.number(String(value))) }
        mutating func encode(_ value: UInt64) { add(.number(String(value))) }

        mutating func encode<T: Encodable>(_ value: T) throws {
            try element().encodeValue(value)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            element().container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            element().unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder {
            element()
        }
    }

    struct SingleValueContainer: SingleValueEncodingContainer {
        let tree: JSONTree
        let node: Int32

        var codingPath: [any CodingKey] { tree.codingPath(of: node) }

        private func set(_ kind: JSONTree.Kind) { tree.setKind(kind, of: node) }

        func encodeNil() { set(.null) }
        func encode(_ value: Bool) { set(.bool(value)) }
        func encode(_ value: String) { set(.string(value)) }
        func encode(_ value: Double) throws { set(try NodeEncoder(tree: tree, node: node).number(value)) }
        func encode(_ value: Float) throws { set(try NodeEncoder(tree: tree, node: node).number(value)) }
        func encode(_ value: Int) { set(.number(String(value))) }
        func encode(_ value: Int8) { set(.number(String(value))) }
        func encode(_ value: Int16) { set(.number(String(value))) }
        func encode(_ value: Int32) { set(.number(String(value))) }
        func encode(_ value: Int64) { set(.number(String(value))) }
        func encode(_ value: UInt) { set(.number(String(value))) }
        func encode(_ value: UInt8) { set(.number(String(value))) }
        func encode(_ value: UInt16) { set(.number(String(value))) }
        func encode(_ value: UInt32) { set(.number(String(value))) }
        func encode(_ value: UInt64) { set(.number(String(value))) }

        func encode<T: Encodable>(_ value: T) throws {
            // The value's own encoding is this container's value, as in Foundation.
            try NodeEncoder(tree: tree, node: node).encodeValue(value)
        }
    }
}
