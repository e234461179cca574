import Crypto
public import Foundation

/// The team's public key that an app seals its reports to (``FieldReport``), with the id a
/// report names it by.
///
/// The app holds only this public half: it can seal a report but never open one, so a report
/// waiting on a device, or taken from it, reveals nothing but its header. The private half stays
/// with the team, in the key file `rewind --key-file` reads (one `ID BASE64` line, as for a log's
/// keys).
///
/// ```swift
/// // Once, by the team: `rewind report keygen --id team-2026 --output team.key` prints
/// // the public key line to put in the app.
/// let key = try ReportKey(line: "team-2026 q83vEjRWeJq83vEjRWeJq83vEjRWeJq83vEjRWeJq80=")
/// ```
public struct ReportKey: Sendable, Hashable {
    /// The id reports sealed to this key name (in their header): the line of the team's key
    /// file that opens them.
    public let id: String
    /// The X25519 public key, 32 bytes.
    public let publicKey: Data

    /// A key with the given id and public key bytes.
    ///
    /// - Throws: ``LogKey/Invalid`` for an id a key file cannot hold, or bytes that are not an
    ///   X25519 public key (32 bytes).
    public init(id: String, publicKey: Data) throws(LogKey.Invalid) {
        try LogKey.validate(id: id)
        guard publicKey.count == 32, (try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: publicKey)) != nil else {
            throw LogKey.Invalid(reason: "report key '\(id)' has \(publicKey.count) bytes; an X25519 public key has 32")
        }
        self.id = id
        self.publicKey = publicKey
    }

    /// The key in a public key line, `ID BASE64`, as `rewind report keygen` prints it.
    public init(line: String) throws(LogKey.Invalid) {
        let fields = line.trimmingCharacters(in: .whitespacesAndNewlines).split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard fields.count == 2, let bytes = Data(base64Encoded: String(fields[1])) else {
            throw LogKey.Invalid(reason: "a report key line is `ID BASE64` (an id, a space, the public key in base64)")
        }
        try self.init(id: String(fields[0]), publicKey: bytes)
    }

    /// The key as a public key line, `ID BASE64`.
    public var line: String { "\(id) \(publicKey.base64EncodedString())" }

    /// A new key pair from the system's secure random source: the public key for the app, and
    /// the private key (a ``LogKey`` of the same id, 32 bytes) for the team's key file, where
    /// `rewind --key-file` finds it by the id a report names.
    public static func generate(id: String) throws(LogKey.Invalid) -> (publicKey: ReportKey, privateKey: LogKey) {
        let privateKey = Curve25519.KeyAgreement.PrivateKey()
        return (
            try ReportKey(id: id, publicKey: privateKey.publicKey.rawRepresentation),
            try LogKey(id: id, bytes: privateKey.rawRepresentation)
        )
    }
}
