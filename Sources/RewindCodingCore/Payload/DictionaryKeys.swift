/// Recognises the keyed containers of dictionaries, whose keys are data rather than a type's
/// field names: the binary codec writes those keys inline instead of interning them.
///
/// Interned symbols stay in a log for good (binary payloads do not say which of their numbers
/// are keys without the app's types, so retention cannot tell which are still used): a
/// dictionary keyed by product ids, user names or tokens would grow the `symbols` table with
/// every new key and keep each one after the payloads that held it were trimmed. A type's own
/// coding keys are few and fixed.
enum DictionaryKeys {
    /// The `CodingKey` type `Dictionary` encodes its `String`, `Int` and `CodingKeyRepresentable`
    /// keys with. It is internal to the standard library, so it is found by encoding a
    /// dictionary once through a probe.
    static let type: ObjectIdentifier? = {
        let probe = Probe()
        try? ["": 0].encode(to: probe)
        return probe.keyType
    }()

    /// Whether containers keyed by `Key` hold a dictionary's entries.
    static func areDictionaryKeys<Key: CodingKey>(_ key: Key.Type) -> Bool {
        ObjectIdentifier(key) == type
    }

    /// An encoder that only notes the key type of the first keyed container asked of it.
    private final class Probe: Encoder {
        var keyType: ObjectIdentifier?
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            if keyType == nil { keyType = ObjectIdentifier(type) }
            return KeyedEncodingContainer(Ignored<Key>(encoder: self))
        }
        func unkeyedContainer() -> any UnkeyedEncodingContainer { IgnoredList(encoder: self) }
        func singleValueContainer() -> any SingleValueEncodingContainer { IgnoredList(encoder: self) }
    }

    private struct Ignored<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoder: Probe
        var codingPath: [any CodingKey] { [] }
        mutating func encodeNil(forKey key: Key) {}
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) {}
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            KeyedEncodingContainer(Ignored<NestedKey>(encoder: encoder))
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { IgnoredList(encoder: encoder) }
        mutating func superEncoder() -> any Encoder { encoder }
        mutating func superEncoder(forKey key: Key) -> any Encoder { encoder }
    }

    private struct IgnoredList: UnkeyedEncodingContainer, SingleValueEncodingContainer {
        let encoder: Probe
        var codingPath: [any CodingKey] { [] }
        var count: Int { 0 }
        mutating func encodeNil() {}
        mutating func encode<T: Encodable>(_ value: T) {}
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            KeyedEncodingContainer(Ignored<NestedKey>(encoder: encoder))
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
        mutating func superEncoder() -> any Encoder { encoder }
    }
}
