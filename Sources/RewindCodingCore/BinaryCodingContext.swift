/// What the generated coders need from the codec running them: the log's key symbols, and
/// `Codable` for the fields whose types are not ``BinaryCodable``. RewindLog's binary codec
/// provides both; nothing else implements these.
@usableFromInline
package protocol BinaryEncodingContext: AnyObject {
    /// The number of a coding key in this log, interning it if it is new.
    func symbol(for key: String) -> UInt32
    /// Appends `value`'s bytes, written through its `Codable` conformance.
    func encodeWithCodable<T: Encodable>(_ value: T, into bytes: inout [UInt8]) throws
}

/// The decoding side of ``BinaryEncodingContext``: long-lived (the codec), so a decode makes
/// no object unless a field needs `Codable`.
@usableFromInline
package protocol BinaryDecodingContext: AnyObject {
    /// Decodes the value in `range` of `bytes` through `type`'s `Codable` conformance.
    func decodeWithCodable<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer, in range: Range<Int>, names: [String]) throws -> T
}

/// A coding-path component for errors: a key or a list index.
package struct BinaryCodingKey: CodingKey {
    package var stringValue: String
    package var intValue: Int?

    package init(_ key: String) {
        stringValue = key
        intValue = nil
    }

    package init(intValue: Int) {
        stringValue = "\(intValue)"
        self.intValue = intValue
    }

    package init?(stringValue: String) { self.init(stringValue) }
}

extension DecodingError {
    /// The same error, one level further down: `key` goes in front of its coding path. Errors
    /// are built where they happen and given their path on the way out, so a successful decode
    /// never builds a path.
    package func prefixed(with key: any CodingKey) -> DecodingError {
        switch self {
        case let .typeMismatch(type, context): .typeMismatch(type, context.prefixed(with: key))
        case let .valueNotFound(type, context): .valueNotFound(type, context.prefixed(with: key))
        case let .keyNotFound(missing, context): .keyNotFound(missing, context.prefixed(with: key))
        case let .dataCorrupted(context): .dataCorrupted(context.prefixed(with: key))
        @unknown default: self
        }
    }
}

extension DecodingError.Context {
    fileprivate func prefixed(with key: any CodingKey) -> DecodingError.Context {
        DecodingError.Context(codingPath: [key] + codingPath, debugDescription: debugDescription, underlyingError: underlyingError)
    }
}
