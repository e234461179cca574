import Crypto
public import Foundation

/// A report from the field: the events that led to a crash, a hang, a broken invariant or a
/// user's "report a problem", sealed to the team's public key (``ReportKey``) so that the
/// device that writes it can never read it back.
///
/// A report file is a clear header followed by sealed content:
///
/// | bytes | field |
/// | --- | --- |
/// | 8 | `RWREPORT` |
/// | 2 | format version, big-endian (1) |
/// | 4 | header length *H*, big-endian (2 to 16,384) |
/// | *H* | the header: UTF-8 JSON (``ReportHeader``) |
/// | 2 | encapsulated key length *E*, big-endian (32) |
/// | *E* | HPKE's encapsulated key |
/// | rest | the content, deflated (zlib) then sealed with HPKE |
///
/// Sealing is HPKE (RFC 9180) in base mode with X25519, HKDF-SHA256 and ChaCha20-Poly1305
/// (swift-crypto), with the first 14 + *H* bytes as associated data: the header is readable
/// without the key, and bound to the content — changing a byte of either makes opening fail.
/// The content is JSON Lines: a `report` line (``ReportDetails``), then a portable export of
/// the report's window (``PortableLog``), which every `rewind` command reads as it reads a log.
///
/// What sealing does not give: **anyone holding the app's public key — anyone with the app —
/// can seal a report.** A report proves nothing about who made it; whoever opens one must treat
/// its content as untrusted input, as the `rewind` tools do.
public struct FieldReport: Sendable {
    /// The HPKE suite reports are sealed with, as a header names it.
    public static let suiteName = "X25519-SHA256-ChaCha20Poly1305"
    /// The format version this build writes and reads.
    public static let formatVersion = 1
    /// The largest report file this build opens: far above any bound an app sets, and a limit
    /// on what a crafted file can make a reader hold.
    public static let largestFile = 64 << 20
    /// The most a report's content may inflate to.
    public static let largestContent = 256 << 20
    /// The largest header.
    static let largestHeader = 16 << 10

    private static let magic = Data("RWREPORT".utf8)
    private static let suite = HPKE.Ciphersuite.Curve25519_SHA256_ChachaPoly
    /// HPKE's `info`: binds a seal to this use and format.
    private static let info = Data("rewind-report 1".utf8)

    /// The header, read without any key.
    public let header: ReportHeader
    /// Where the report was read from (what errors name).
    public let path: String
    /// The report's bytes, as read: what its SHA-256 (``ReportDigest``) names it by.
    public let bytes: Data
    /// The bytes the header is bound by: the magic, the version, the length and the header.
    private let authenticated: Data
    private let encapsulatedKey: Data
    private let ciphertext: Data

    /// Whether the file at `path` begins as a report does (a regular file only; nothing else
    /// is read from it).
    public static func isReport(at path: String) -> Bool {
        guard (try? FileManager.default.attributesOfItem(atPath: path)[.type]) as? FileAttributeType == .typeRegular,
              let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: magic.count)) == magic
    }

    /// Reads the report at `path` (its header; the content is opened by ``open(with:)``).
    ///
    /// - Throws: `EventLogError` for a missing or unreadable file, one larger than
    ///   ``largestFile``, or one that is not a whole report of a format this build reads.
    public init(contentsOf path: String) throws(EventLogError) {
        let attributes: [FileAttributeKey: Any]
        do { attributes = try FileManager.default.attributesOfItem(atPath: path) } catch { throw .fileNotFound(path: path) }
        guard attributes[.type] as? FileAttributeType == .typeRegular else { throw .unreadableReport(path: path, reason: "not a regular file") }
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        guard size <= Self.largestFile else {
            throw .unreadableReport(path: path, reason: "it has \(size) bytes; a report has at most \(Self.largestFile)")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw .readOnly(path: path, detail: "the file cannot be read") }
        defer { try? handle.close() }
        let bytes: Data
        do { bytes = try handle.read(upToCount: Self.largestFile + 1) ?? Data() } catch { throw .readOnly(path: path, detail: "the file cannot be read") }
        try self.init(bytes: bytes, path: path)
    }

    /// Reads a report's bytes, checking every field of its layout.
    public init(bytes: Data, path: String) throws(EventLogError) {
        let bytes = Data(bytes)  // indices from 0
        func fail(_ reason: String) -> EventLogError { .unreadableReport(path: path, reason: reason) }
        guard bytes.count <= Self.largestFile else { throw fail("it has \(bytes.count) bytes; a report has at most \(Self.largestFile)") }
        guard bytes.count >= 14, bytes.prefix(8) == Self.magic else { throw fail("not a Rewind report (it does not begin with RWREPORT)") }
        let version = Int(bytes[8]) << 8 | Int(bytes[9])
        guard version == Self.formatVersion else {
            throw fail(version > Self.formatVersion
                ? "report format \(version); this build reads format \(Self.formatVersion) — update Rewind to open it"
                : "report format \(version) is not one Rewind ever wrote")
        }
        let headerLength = bytes[10..<14].reduce(0) { $0 << 8 | Int($1) }
        guard (2...Self.largestHeader).contains(headerLength) else {
            throw fail("its header claims \(headerLength) bytes; a header has 2 to \(Self.largestHeader)")
        }
        guard bytes.count >= 14 + headerLength + 2 else { throw fail("it ends inside its header (\(bytes.count) bytes)") }
        let headerEnd = 14 + headerLength
        do {
            header = try JSONDecoder().decode(ReportHeader.self, from: bytes[14..<headerEnd])
        } catch {
            throw fail("its header is not a report header (\(ValueFreeErrorText.describe(error)))")
        }
        guard header.format == "rewind-report" else { throw fail("its header's format is '\(LogText.printable(header.format))', not rewind-report") }
        guard header.suite == Self.suiteName else {
            throw fail("it is sealed with '\(LogText.printable(header.suite))'; this build opens \(Self.suiteName)")
        }
        do { try LogKey.validate(id: header.keyID) } catch { throw fail("its header's key id: \(error.reason)") }
        let keyLength = Int(bytes[headerEnd]) << 8 | Int(bytes[headerEnd + 1])
        guard keyLength == 32 else { throw fail("its encapsulated key claims \(keyLength) bytes; X25519's has 32") }
        let keyEnd = headerEnd + 2 + keyLength
        // ChaCha20-Poly1305's tag: a sealed content has at least these 16 bytes.
        guard bytes.count >= keyEnd + 16 else { throw fail("it ends before its sealed content (\(bytes.count) bytes)") }
        authenticated = bytes[0..<headerEnd]
        encapsulatedKey = bytes[(headerEnd + 2)..<keyEnd]
        ciphertext = bytes[keyEnd...]
        self.path = path
        self.bytes = bytes
    }

    /// Seals a report's content to `key`.
    ///
    /// - Parameters:
    ///   - header: The clear header; its key id must be `key`'s.
    ///   - details: The `report` line.
    ///   - export: The window's portable export (JSON Lines).
    ///   - key: The team's public key.
    /// - Returns: The report file's bytes.
    public static func seal(header: ReportHeader, details: ReportDetails, export: Data, to key: ReportKey) throws(EventLogError) -> Data {
        precondition(header.keyID == key.id, "a report's header names the key it is sealed to")
        let headerBytes = try encoded(header)
        guard headerBytes.count <= largestHeader else {
            throw .failed(path: "report", reason: "its header has \(headerBytes.count) bytes, more than \(largestHeader)")
        }
        var authenticated = magic
        authenticated.append(contentsOf: [UInt8(formatVersion >> 8), UInt8(formatVersion & 0xFF)])
        authenticated.append(contentsOf: withUnsafeBytes(of: UInt32(headerBytes.count).bigEndian, Array.init))
        authenticated.append(headerBytes)
        let deflated = try ReportCompression.compressed(try content(details: details, export: export))
        do {
            let recipient = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: key.publicKey)
            var sender = try HPKE.Sender(recipientKey: recipient, ciphersuite: suite, info: info)
            let sealed = try sender.seal(deflated, authenticating: authenticated)
            var file = authenticated
            file.append(contentsOf: withUnsafeBytes(of: UInt16(sender.encapsulatedKey.count).bigEndian, Array.init))
            file.append(sender.encapsulatedKey)
            file.append(sealed)
            return file
        } catch {
            throw .failed(path: "report", reason: "HPKE could not seal the report (\(error))")
        }
    }

    /// The content a report seals: the `report` line, then the window's export.
    package static func content(details: ReportDetails, export: Data) throws(EventLogError) -> Data {
        var content = try encoded(details)
        content.append(0x0A)
        content.append(export)
        return content
    }

    private static func encoded(_ value: some Encodable) throws(EventLogError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        do {
            return try encoder.encode(value)
        } catch {
            throw .encodingFailed(path: "report", seq: nil, actionCase: nil, reason: ValueFreeErrorText.describe(error))
        }
    }

    /// Opens the content with the team's private key: the key in `keys` whose id the header
    /// names.
    ///
    /// - Throws: `EventLogError.unreadableReport` saying which key it needs when `keys` lacks
    ///   it, that it failed authentication when its header or content was changed (or the key
    ///   is another of the same id), or what is wrong with the content.
    public func open(with keys: LogKeys) throws(EventLogError) -> (details: ReportDetails, export: Data) {
        func fail(_ reason: String) -> EventLogError { .unreadableReport(path: path, reason: reason) }
        guard let key = keys[header.keyID] else {
            throw fail("it is sealed to the team's key '\(header.keyID)'; give its private key with --key-file (a line `\(header.keyID) BASE64`)")
        }
        guard let privateKey = try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: key.bytes) else {
            throw fail("key '\(key.id)' has \(key.bytes.count) bytes; a report's private key is X25519's 32")
        }
        let deflated: Data
        do {
            var recipient = try HPKE.Recipient(privateKey: privateKey, ciphersuite: Self.suite, info: Self.info, encapsulatedKey: encapsulatedKey)
            deflated = try recipient.open(ciphertext, authenticating: authenticated)
        } catch {
            throw fail("it fails authentication: its header or content was changed, or key '\(key.id)' is not the one it was sealed to")
        }
        let content = try ReportCompression.decompressed(deflated, limit: Self.largestContent, path: path)
        guard let newline = content.firstIndex(of: 0x0A) else { throw fail("its content has no report line") }
        let details: ReportDetails
        do {
            details = try JSONDecoder().decode(ReportDetails.self, from: content[..<newline])
        } catch {
            throw fail("its report line is not one (\(ValueFreeErrorText.describe(error)))")
        }
        guard details.type == "report" else { throw fail("its first line is of type '\(LogText.printable(details.type))', not report") }
        return (details, Data(content[(newline + 1)...]))
    }
}
