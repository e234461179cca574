import Synchronization

/// Finds an enum action's case path by starting to encode it and stopping at the payload.
///
/// Synthesized `Codable` writes `ShopAction.cart(.remove(productID:))` as a keyed container
/// whose only key is the case (`cart`), holding a nested container whose `_0` is the payload
/// enum, itself keyed by its case (`remove`)… This encoder records those keys and aborts at the
/// first real payload field, so it touches a few keys, not the whole value — several times
/// faster than walking the value with `Mirror`, which demangles field names on every call.
/// Values that do not encode this way (custom `Codable`, structs) return `nil`.
struct CasePathEncoder {
    /// Thrown to abandon the encoding once the path is known.
    private struct Done: Error {}

    /// The case path of `value`, or `nil` when it is not a synthesized-`Codable` enum.
    static func path(of value: some Encodable) -> String? {
        let recorder = PathRecorder()
        do {
            try value.encode(to: recorder)
        } catch is Done {
        } catch {
            return nil
        }
        return recorder.parts.isEmpty || !recorder.isEnum ? nil : recorder.parts.joined(separator: ".")
    }

    private static let knownTraits = Mutex<[ObjectIdentifier: Traits]>([:])

    /// The encoder: records case keys, descending into `_0` payloads that are enums.
    private final class PathRecorder: Encoder {
        var codingPath: [any CodingKey] = []
        var userInfo: [CodingUserInfoKey: Any] = [:]
        var parts: [String] = []
        /// Whether the outermost value opened a case container (a nested one under its key).
        var isEnum = false
        /// What the next container stands for.
        var expectingCase = true

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            let expectingCase = self.expectingCase
            self.expectingCase = false
            return KeyedEncodingContainer(KeyRecorder<Key>(encoder: self, isCaseLevel: expectingCase))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            Refusing(codingPath: codingPath)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer {
            Refusing(codingPath: codingPath)
        }
    }

    private struct KeyRecorder<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoder: PathRecorder
        /// The container of an enum's cases (its one key is the case), or of a case's payload.
        let isCaseLevel: Bool
        var codingPath: [any CodingKey] { encoder.codingPath }

        func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            guard isCaseLevel else { return KeyedEncodingContainer(KeyRecorder<NestedKey>(encoder: encoder, isCaseLevel: false)) }
            encoder.parts.append(key.stringValue)
            encoder.isEnum = true
            return KeyedEncodingContainer(PayloadRecorder<NestedKey>(encoder: encoder))
        }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { throw Done() }
        mutating func encodeNil(forKey key: Key) throws { throw Done() }
        func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { Refusing(codingPath: codingPath) }
        func superEncoder() -> any Encoder { encoder }
        func superEncoder(forKey key: Key) -> any Encoder { encoder }
    }

    /// A case's payload container: descends into a lone `_0` that is itself an enum.
    private struct PayloadRecorder<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoder: PathRecorder
        var codingPath: [any CodingKey] { encoder.codingPath }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            guard key.stringValue == "_0" else { throw Done() }
            let traits = CasePathEncoder.traits(of: T.self, value)
            guard traits.isEnum else { throw Done() }
            if traits.isSingleValue {
                // A raw-value enum, or one with its own single-value encoding: named from its
                // declaration, never from what it encodes or describes (which may be a secret).
                encoder.parts.append(ActionCaseName.caseLabel(of: value))
                throw Done()
            }
            encoder.expectingCase = true
            try value.encode(to: encoder)
            throw Done()
        }

        mutating func encodeNil(forKey key: Key) throws { throw Done() }
        func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            KeyedEncodingContainer(KeyRecorder<NestedKey>(encoder: encoder, isCaseLevel: false))
        }
        func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { Refusing(codingPath: codingPath) }
        func superEncoder() -> any Encoder { encoder }
        func superEncoder(forKey key: Key) -> any Encoder { encoder }
    }

    /// What a payload type is, learned once per type (`Mirror` only runs the first time).
    struct Traits: Sendable {
        /// Whether it is an enum.
        var isEnum: Bool
        /// Whether it encodes through a single-value container (a raw-value enum).
        var isSingleValue: Bool
    }

    private static func traits<T: Encodable>(of type: T.Type, _ value: T) -> Traits {
        let id = ObjectIdentifier(type)
        if let known = knownTraits.withLock({ $0[id] }) { return known }
        let probe = SingleValueProbe()
        try? value.encode(to: probe)
        let traits = Traits(isEnum: Mirror(reflecting: value).displayStyle == .enum, isSingleValue: probe.usedSingleValue)
        knownTraits.withLock { $0[id] = traits }
        return traits
    }

    private final class SingleValueProbe: Encoder {
        var codingPath: [any CodingKey] = []
        var userInfo: [CodingUserInfoKey: Any] = [:]
        var usedSingleValue = false
        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            KeyedEncodingContainer(KeyRecorder<Key>(encoder: PathRecorder(), isCaseLevel: false))
        }
        func unkeyedContainer() -> any UnkeyedEncodingContainer { Refusing(codingPath: []) }
        func singleValueContainer() -> any SingleValueEncodingContainer {
            usedSingleValue = true
            return Refusing(codingPath: [])
        }
    }

    /// A container that abandons the encoding at its first use.
    private struct Refusing: UnkeyedEncodingContainer, SingleValueEncodingContainer {
        var codingPath: [any CodingKey]
        var count: Int { 0 }
        mutating func encodeNil() throws { throw Done() }
        mutating func encode<T: Encodable>(_ value: T) throws { throw Done() }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            KeyedEncodingContainer(KeyRecorder<NestedKey>(encoder: PathRecorder(), isCaseLevel: false))
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
        mutating func superEncoder() -> any Encoder { PathRecorder() }
    }
}
