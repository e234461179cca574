import Crypto
public import Foundation

/// A key that encrypts a log's payloads and snapshots, with the id the log records it by.
///
/// The app keeps the key (in its keychain); the log stores only its id, so that a reader can
/// tell which key each session needs and keys can rotate. Give the log every key its sessions
/// may have been recorded with (``LogKeys``).
///
/// ```swift
/// let key = try LogKey(id: "2026-11", bytes: keychainData)   // 16 to 64 random bytes
/// let log = try EventLog(path: path, keys: LogKeys(current: key))
/// ```
public struct LogKey: Sendable {
    /// Why bytes or an id cannot make a key.
    public struct Invalid: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong.
        public var reason: String
        public var description: String { "not a usable log key: \(reason)" }
    }

    /// The id sessions encrypted with this key record.
    public let id: String
    /// The app's key, from which each session's own key is derived (``PayloadSeal``).
    let material: SymmetricKey

    /// The fewest and most bytes a key may have: at least 128 bits of secret; more than 512
    /// adds nothing to a key that is only ever an input to HKDF-SHA256.
    public static let sizes = 16...64

    /// A key with the given bytes.
    ///
    /// - Parameters:
    ///   - id: How sessions name this key: 1 to 128 characters, no spaces or control
    ///     characters (it is written in key files and error messages).
    ///   - bytes: The secret: 16 to 64 random bytes (32 is usual).
    /// - Throws: ``Invalid`` for an empty or unprintable id, or a key of another size.
    public init(id: String, bytes: some ContiguousBytes) throws(Invalid) {
        try Self.validate(id: id)
        let count = bytes.withUnsafeBytes { $0.count }
        guard Self.sizes.contains(count) else {
            throw Invalid(reason: "key '\(id)' has \(count) bytes; a key has \(Self.sizes.lowerBound) to \(Self.sizes.upperBound) (32 is usual)")
        }
        self.id = id
        material = SymmetricKey(data: bytes)
    }

    /// A new key of 32 random bytes (from the system's secure random source). Store its
    /// ``bytes`` in the keychain: without them, what it encrypts cannot be read.
    public static func random(id: String) throws(Invalid) -> LogKey {
        try LogKey(id: id, bytes: SymmetricKey(size: .bits256))
    }

    /// The secret, to store where the app keeps secrets.
    public var bytes: Data {
        material.withUnsafeBytes { Data($0) }
    }

    /// The key as one line of a key file (`ID BASE64`), the form `rewind --key-file` reads.
    public var keyFileLine: String {
        "\(id) \(bytes.base64EncodedString())"
    }

    static func validate(id: String) throws(Invalid) {
        guard !id.isEmpty, id.count <= 128 else {
            throw Invalid(reason: "a key id has 1 to 128 characters; this one has \(id.count)")
        }
        let unprintable = id.unicodeScalars.contains { $0.properties.generalCategory == .control || $0.properties.isWhitespace }
        guard !unprintable else {
            throw Invalid(reason: "a key id has no spaces or control characters")
        }
    }
}
