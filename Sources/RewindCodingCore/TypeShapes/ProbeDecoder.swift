import Foundation

/// The decoder ``ShapeProbe`` runs a type's `init(from:)` against: every container it hands
/// out writes what is asked into a ``ProbeRecorder`` and answers with a placeholder.
struct ProbeDecoder: Decoder {
    let probe: ShapeProbe
    let recorder: ProbeRecorder
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(ProbeKeyedContainer<Key>(probe: probe, recorder: recorder, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        ProbeUnkeyedContainer(probe: probe, recorder: recorder, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        recorder.usedSingleValue = true
        return ProbeSingleValueContainer(probe: probe, recorder: recorder, codingPath: codingPath)
    }
}

extension ShapeProbe {
    /// A value of `type` for a container, its shape recorded under `name` (nothing is recorded
    /// in a values-only run). Throws when no value could be made.
    func answer<T: Decodable>(_ type: T.Type, as name: String, optional: Bool = false, in recorder: ProbeRecorder) throws -> T? {
        if let depth = recorder.valuesOnly {
            if optional { return nil }
            guard let value = anyValue(type, depth: depth) else { throw ProbeStop() }
            return value
        }
        let (shape, value) = describe(type)
        recorder.record(name, .shape(optional ? .optional(shape) : shape))
        if optional { return nil }
        guard let value else { throw ProbeStop() }
        return value
    }
}

struct ProbeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let probe: ShapeProbe
    let recorder: ProbeRecorder
    var codingPath: [any CodingKey]

    /// Read only by decodings that choose by key: an enum coded by case name. The first run
    /// lists the case names and answers with none (the decoding then fails); each later run
    /// answers with one chosen case.
    var allKeys: [Key] {
        if let chosen = recorder.chosenCase { return Key(stringValue: chosen).map { [$0] } ?? [] }
        recorder.listedKeys = true
        recorder.caseKeys = ShapeProbe.layoutCases(Key.self)?.map(\.stringValue)
        return []
    }

    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) throws -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try value(type, key)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try optionalValue(type, key)
    }

    private func value<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
        try probe.answer(type, as: key.stringValue, in: recorder)!
    }

    private func optionalValue<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T? {
        try probe.answer(type, as: key.stringValue, optional: true, in: recorder)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let nested = recorder.nested(key.stringValue)
        return KeyedDecodingContainer(ProbeKeyedContainer<NestedKey>(probe: probe, recorder: nested, codingPath: codingPath + [key]))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let nested = recorder.nested(key.stringValue, list: true)
        return ProbeUnkeyedContainer(probe: probe, recorder: nested, codingPath: codingPath + [key])
    }

    func superDecoder() throws -> any Decoder {
        try superDecoder(named: "super")
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        try superDecoder(named: key.stringValue)
    }

    private func superDecoder(named name: String) throws -> any Decoder {
        let nested = recorder.nested(name)
        return ProbeDecoder(probe: probe, recorder: nested, codingPath: codingPath)
    }

    // The primitive requirements, each the generic one.
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try value(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try value(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try value(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try value(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try value(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try value(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try value(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try value(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try value(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try value(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try value(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try value(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try value(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try value(type, key) }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try optionalValue(type, key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try optionalValue(type, key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try optionalValue(type, key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try optionalValue(type, key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try optionalValue(type, key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try optionalValue(type, key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try optionalValue(type, key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try optionalValue(type, key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try optionalValue(type, key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try optionalValue(type, key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try optionalValue(type, key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try optionalValue(type, key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try optionalValue(type, key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try optionalValue(type, key) }
}

/// An unkeyed container that holds one element: enough to learn the element's shape.
struct ProbeUnkeyedContainer: UnkeyedDecodingContainer {
    let probe: ShapeProbe
    let recorder: ProbeRecorder
    var codingPath: [any CodingKey]
    var count: Int? { nil }
    private(set) var currentIndex = 0
    var isAtEnd: Bool { currentIndex > 0 }

    init(probe: ShapeProbe, recorder: ProbeRecorder, codingPath: [any CodingKey]) {
        (self.probe, self.recorder, self.codingPath) = (probe, recorder, codingPath)
    }

    mutating func decodeNil() throws -> Bool { false }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try next(type)
    }

    private mutating func next<T: Decodable>(_ type: T.Type) throws -> T {
        defer { currentIndex += 1 }
        return try probe.answer(type, as: "\(currentIndex)", in: recorder)!
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        defer { currentIndex += 1 }
        let nested = recorder.nested("\(currentIndex)")
        return KeyedDecodingContainer(ProbeKeyedContainer<NestedKey>(probe: probe, recorder: nested, codingPath: codingPath))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        defer { currentIndex += 1 }
        let nested = recorder.nested("\(currentIndex)", list: true)
        return ProbeUnkeyedContainer(probe: probe, recorder: nested, codingPath: codingPath)
    }

    mutating func superDecoder() throws -> any Decoder {
        defer { currentIndex += 1 }
        let nested = recorder.nested("\(currentIndex)")
        return ProbeDecoder(probe: probe, recorder: nested, codingPath: codingPath)
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type) }
    mutating func decode(_ type: String.Type) throws -> String { try next(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try next(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try next(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type) }
}

/// A single value: a raw value, or the one value a wrapper type holds.
struct ProbeSingleValueContainer: SingleValueDecodingContainer {
    let probe: ShapeProbe
    let recorder: ProbeRecorder
    var codingPath: [any CodingKey]

    func decodeNil() -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try single(type)
    }

    private func single<T: Decodable>(_ type: T.Type) throws -> T {
        try probe.answer(type, as: "value", in: recorder)!
    }

    func decode(_ type: Bool.Type) throws -> Bool { try single(type) }
    func decode(_ type: String.Type) throws -> String { try single(type) }
    func decode(_ type: Double.Type) throws -> Double { try single(type) }
    func decode(_ type: Float.Type) throws -> Float { try single(type) }
    func decode(_ type: Int.Type) throws -> Int { try single(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try single(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try single(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try single(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try single(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try single(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try single(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try single(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try single(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try single(type) }
}
