import Crypto
package import Foundation

/// Seals and opens one session's payloads and snapshots: AES-256-GCM under the session's own
/// key, which HKDF-SHA256 derives from the app's key and the session's salt.
///
/// Each sealed value is `nonce (12 bytes) ‖ ciphertext ‖ tag (16 bytes)`, 28 bytes more than the
/// encoded value. The nonce is random: a seq cannot serve, since a transaction that rolls back
/// gives its seqs again to other events. The value is bound to its seq and kind as associated
/// data, so a payload moved to another event, or a snapshot to another seq, fails to open like
/// a damaged one. Per-session keys keep each key's count of random nonces to one session's.
package struct PayloadSeal: Sendable {
    /// What a sealed value is, bound into it.
    package enum Kind: Int64 {
        case event = 0x45
        case snapshot = 0x53
    }

    /// What sealing adds to each value: the nonce and the tag.
    package static let overhead = 28
    package static let saltSize = 16
    package static let checkSize = 16

    private let key: SymmetricKey

    /// The seal of a session whose encryption `check` says was recorded with `key`; `nil` when
    /// the key does not give the session's check (the wrong key).
    package init?(key: LogKey, encryption: SessionEncryption) {
        guard Self.check(key: key, salt: encryption.salt) == encryption.check else { return nil }
        self.key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: key.material, salt: encryption.salt, info: Data("rewind payload key v1".utf8), outputByteCount: 32
        )
    }

    /// The check a session keeps for `key` and `salt`: derived with its own label, so it says
    /// nothing about the payload key.
    package static func check(key: LogKey, salt: Data) -> Data {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: key.material, salt: salt, info: Data("rewind key check v1".utf8), outputByteCount: checkSize)
            .withUnsafeBytes { Data($0) }
    }

    package static func newSalt() -> Data {
        SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) }
    }

    /// `bytes`, sealed as the value of kind `kind` at `seq`.
    package func seal(_ bytes: Data, seq: Int64, kind: Kind) throws -> Data {
        var context = (kind.rawValue.bigEndian, seq.bigEndian)
        let box = try withUnsafeBytes(of: &context) { associated in
            try AES.GCM.seal(bytes, using: key, authenticating: associated)
        }
        // Always present with the default 12-byte nonce.
        guard let combined = box.combined else { throw CryptoKitError.incorrectParameterSize }
        return combined
    }

    /// The value sealed in `bytes` as kind `kind` at `seq`; `nil` when it does not open: it was
    /// changed, moved, or is not a sealed value at all.
    func open(_ bytes: UnsafeRawBufferPointer, seq: Int64, kind: Kind) -> Data? {
        guard bytes.count >= Self.overhead else { return nil }
        var context = (kind.rawValue.bigEndian, seq.bigEndian)
        return withUnsafeBytes(of: &context) { associated in
            guard let box = try? AES.GCM.SealedBox(combined: bytes) else { return nil }
            return try? AES.GCM.open(box, using: key, authenticating: associated)
        }
    }
}
