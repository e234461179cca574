import Foundation

/// Encodes values as JSON byte for byte as Foundation's `JSONEncoder` does with `.sortedKeys`
/// and its default strategies (dates as seconds since 2001, data as Base64, non-finite numbers
/// refused), several times faster: the JSON codec's encoding, which the recorder's writer runs
/// for every action and snapshot.
///
/// Written by hand because it measurably must be faster (the recorder's JSON throughput was
/// bound by Foundation's encoder; rewind-bench's README has the figures): Foundation boxes
/// every value through dynamic casts for its special types and builds its tree through
/// dictionaries, where this encoder compares metatypes and appends to arrays. Decoding stays
/// Foundation's `JSONDecoder`. `SortedJSONEncoderTests` checks the bytes against Foundation's
/// over the example apps' sessions and the edges of each kind of value.
enum SortedJSONEncoder {
    /// The JSON of `value`.
    ///
    /// - Throws: `EncodingError.invalidValue` for a non-finite number, a value that encodes
    ///   nothing at the top level, or what the value's own `encode(to:)` throws.
    static func encode<Value: Encodable>(_ value: Value) throws -> Data {
        let root = ValueEncoder(parent: nil, key: nil)
        let node = try root.box(value)
        guard let node else {
            throw EncodingError.invalidValue(value, EncodingError.Context(codingPath: [], debugDescription: "Top-level \(Value.self) did not encode any values."))
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        node.write(into: &bytes)
        return Data(bytes)
    }

    /// The encoder one value encodes itself through: holds what it encoded, and where it is
    /// (its coding path, worked out only when asked for).
    final class ValueEncoder: Encoder {
        let parent: ValueEncoder?
        let key: (any CodingKey)?
        /// What the value encoded; `nil` until it asks for a container.
        var node: JSONNode?

        init(parent: ValueEncoder?, key: (any CodingKey)?) {
            self.parent = parent
            self.key = key
        }

        var codingPath: [any CodingKey] {
            var path: [any CodingKey] = []
            var encoder: ValueEncoder? = self
            while let current = encoder {
                if let key = current.key { path.append(key) }
                encoder = current.parent
            }
            return path.reversed()
        }

        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            let object: JSONObject
            if case let .object(existing)? = node {
                object = existing
            } else {
                object = JSONObject()
                node = .object(object)
            }
            return KeyedEncodingContainer(KeyedContainer(encoder: self, object: object))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            let array: JSONArray
            if case let .array(existing)? = node {
                array = existing
            } else {
                array = JSONArray()
                node = .array(array)
            }
            return UnkeyedContainer(encoder: self, array: array)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer {
            SingleValueContainer(encoder: self)
        }

        /// `value` as a node, encoded through a child encoder at `key`; `nil` when it encoded
        /// nothing. Foundation's special types are compared by metatype, not cast to.
        func box<Value: Encodable>(_ value: Value, at key: (any CodingKey)? = nil) throws -> JSONNode? {
            if Value.self == String.self { return .string(value as! String) }
            if Value.self == Int.self { return .number(String(value as! Int)) }
            if Value.self == Double.self { return try number(value as! Double, at: key) }
            if Value.self == Bool.self { return .bool(value as! Bool) }
            if Value.self == Data.self { return .string((value as! Data).base64EncodedString()) }
            if Value.self == URL.self { return .string((value as! URL).absoluteString) }
            if Value.self == Decimal.self { return .number((value as! Decimal).description) }
            let child = ValueEncoder(parent: self, key: key)
            try value.encode(to: child)
            return child.node
        }

        /// A finite number as Foundation writes it; a non-finite one refused as Foundation
        /// refuses it by default.
        func number<F: BinaryFloatingPoint & LosslessStringConvertible & Encodable>(_ value: F, at key: (any CodingKey)? = nil) throws -> JSONNode {
            guard value.isFinite else {
                var path = codingPath
                if let key { path.append(key) }
                throw EncodingError.invalidValue(value, EncodingError.Context(
                    codingPath: path,
                    debugDescription: "Unable to encode \(F.self).\(value) directly in JSON."
                ))
            }
            return .number(JSONNode.number(value))
        }
    }

    /// An index in an array, for coding paths.
    struct IndexKey: CodingKey {
        var intValue: Int?
        var stringValue: String { "Index \(intValue ?? 0)" }
        init(_ index: Int) { intValue = index }
        init?(stringValue: String) { nil }
        init?(intValue: Int) { self.intValue = intValue }
    }

    /// The key `superEncoder()` uses, as Foundation names it.
    struct SuperKey: CodingKey {
        var stringValue: String { "super" }
        var intValue: Int? { nil }
        init() {}
        init?(stringValue: String) { nil }
        init?(intValue: Int) { nil }
    }

    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoder: ValueEncoder
        let object: JSONObject

        var codingPath: [any CodingKey] { encoder.codingPath }

        mutating func encodeNil(forKey key: Key) { object.set(key.stringValue, .null) }
        mutating func encode(_ value: Bool, forKey key: Key) { object.set(key.stringValue, .bool(value)) }
        mutating func encode(_ value: String, forKey key: Key) { object.set(key.stringValue, .string(value)) }
        mutating func encode(_ value: Double, forKey key: Key) throws { object.set(key.stringValue, try encoder.number(value, at: key)) }
        mutating func encode(_ value: Float, forKey key: Key) throws { object.set(key.stringValue, try encoder.number(value, at: key)) }
        mutating func encode(_ value: Int, forKey key: Key) { object.set(key.stringValue, .number(String(value))) }
        mutating func encode(_ value: Int8, forKey key: Key) { object.set(key.stringValue, .number(String(value))) }
        mutating func encode(_ value: Int16, forKey key: Key) { object.set(key.stringValue, .number(String(value))) }
        mutating func encode(_ value: Int32, forKey key: Key) { object.set(key.stringValue, .number(String(value))) }
        mutating func encode(_ value: Int64, forKey key: Key) { object.set(key.stringValue, .number(String(value))) }
        mutating func encode(_ value: UInt, forKey key: Key) { object.set(key.stringValue, .number(String(value))) }
        mutating func encode(_ value: UInt8, forKey key: Key) { object.set(key.stringValue, .number(String(value))) }
        mutating func encode(_ value: UInt16, forKey key: Key) { object.set(key.stringValue, .number(String(value))) }
        mutating func encode(_ value: UInt32, forKey key: Key) { object.set(key.stringValue, .number(String(value))) }
        mutating func encode(_ value: UInt64, forKey key: Key) { object.set(key.stringValue, .number(String(value))) }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            object.set(key.stringValue, try encoder.box(value, at: key) ?? .object(JSONObject()))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            let nested = JSONObject()
            object.set(key.stringValue, .object(nested))
            return KeyedEncodingContainer(KeyedContainer<NestedKey>(encoder: ValueEncoder(parent: encoder, key: key), object: nested))
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let nested = JSONArray()
            object.set(key.stringValue, .array(nested))
            return UnkeyedContainer(encoder: ValueEncoder(parent: encoder, key: key), array: nested)
        }

        mutating func superEncoder() -> any Encoder {
            let child = ValueEncoder(parent: encoder, key: SuperKey())
            object.set("super", .deferred(child))
            return child
        }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            let child = ValueEncoder(parent: encoder, key: key)
            object.set(key.stringValue, .deferred(child))
            return child
        }
    }

    struct UnkeyedContainer: UnkeyedEncodingContainer {
        let encoder: ValueEncoder
        let array: JSONArray

        var codingPath: [any CodingKey] { encoder.codingPath }
        var count: Int { array.elements.count }

        private var nextKey: IndexKey { IndexKey(array.elements.count) }

        mutating func encodeNil() { array.elements.append(.null) }
        mutating func encode(_ value: Bool) { array.elements.append(.bool(value)) }
        mutating func encode(_ value: String) { array.elements.append(.string(value)) }
        mutating func encode(_ value: Double) throws { array.elements.append(try encoder.number(value, at: nextKey)) }
        mutating func encode(_ value: Float) throws { array.elements.append(try encoder.number(value, at: nextKey)) }
        mutating func encode(_ value: Int) { array.elements.append(.number(String(value))) }
        mutating func encode(_ value: Int8) { array.elements.append(.number(String(value))) }
        mutating func encode(_ value: Int16) { array.elements.append(.number(String(value))) }
        mutating func encode(_ value: Int32) { array.elements.append(.number(String(value))) }
        mutating func encode(_ value: Int64) { array.elements.append(.number(String(value))) }
        mutating func encode(_ value: UInt) { array.elements.append(.number(String(value))) }
        mutating func encode(_ value: UInt8) { array.elements.append(.number(String(value))) }
        mutating func encode(_ value: UInt16) { array.elements.append(.number(String(value))) }
        mutating func encode(_ value: UInt32) { array.elements.append(.number(String(value))) }
        mutating func encode(_ value: UInt64) { array.elements.append(.number(String(value))) }

        mutating func encode<T: Encodable>(_ value: T) throws {
            array.elements.append(try encoder.box(value, at: nextKey) ?? .object(JSONObject()))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            let nested = JSONObject()
            let key = nextKey
            array.elements.append(.object(nested))
            return KeyedEncodingContainer(KeyedContainer<NestedKey>(encoder: ValueEncoder(parent: encoder, key: key), object: nested))
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let nested = JSONArray()
            let key = nextKey
            array.elements.append(.array(nested))
            return UnkeyedContainer(encoder: ValueEncoder(parent: encoder, key: key), array: nested)
        }

        mutating func superEncoder() -> any Encoder {
            let child = ValueEncoder(parent: encoder, key: nextKey)
            array.elements.append(.deferred(child))
            return child
        }
    }

    struct SingleValueContainer: SingleValueEncodingContainer {
        let encoder: ValueEncoder

        var codingPath: [any CodingKey] { encoder.codingPath }

        func encodeNil() { encoder.node = .null }
        func encode(_ value: Bool) { encoder.node = .bool(value) }
        func encode(_ value: String) { encoder.node = .string(value) }
        func encode(_ value: Double) throws { encoder.node = try encoder.number(value) }
        func encode(_ value: Float) throws { encoder.node = try encoder.number(value) }
        func encode(_ value: Int) { encoder.node = .number(String(value)) }
        func encode(_ value: Int8) { encoder.node = .number(String(value)) }
        func encode(_ value: Int16) { encoder.node = .number(String(value)) }
        func encode(_ value: Int32) { encoder.node = .number(String(value)) }
        func encode(_ value: Int64) { encoder.node = .number(String(value)) }
        func encode(_ value: UInt) { encoder.node = .number(String(value)) }
        func encode(_ value: UInt8) { encoder.node = .number(String(value)) }
        func encode(_ value: UInt16) { encoder.node = .number(String(value)) }
        func encode(_ value: UInt32) { encoder.node = .number(String(value)) }
        func encode(_ value: UInt64) { encoder.node = .number(String(value)) }

        func encode<T: Encodable>(_ value: T) throws {
            // The value's own encoding goes where this container's would: a single value
            // container is the value itself, as in Foundation.
            if let node = try encoder.box(value) {
                encoder.node = node
            } else {
                encoder.node = .object(JSONObject())
            }
        }
    }
}
