package import Foundation

/// How a session's payloads and snapshots are encrypted: with which key, by the id the app gave
/// it, and what the log keeps to derive the session's own key from it and to check it. None of
/// it is secret.
public struct SessionEncryption: Codable, Sendable, Hashable {
    /// The id of the app's key (``LogKey/id``).
    public var keyID: String
    /// 16 random bytes, mixed with the app's key into the session's own.
    package var salt: Data
    /// 16 bytes derived from the key and the salt: a key that does not give them is the wrong
    /// key, told apart from a damaged payload.
    package var check: Data

    package init(keyID: String, salt: Data, check: Data) {
        self.keyID = keyID
        self.salt = salt
        self.check = check
    }

    /// A new session's encryption with `key`: a fresh salt and its check.
    package static func new(with key: LogKey) -> SessionEncryption {
        let salt = PayloadSeal.newSalt()
        return SessionEncryption(keyID: key.id, salt: salt, check: PayloadSeal.check(key: key, salt: salt))
    }
}
