#if Collector
// Every file of this module is inside `#if Collector`: without the trait the module is empty and
// its dependencies (Hummingbird, SwiftNIO) are neither resolved nor built (Package.swift).
import Crypto
public import Foundation
public import RewindLog

/// The tokens a collector accepts, from its tokens file: each stored as a SHA-256 digest, never
/// in the clear, and compared in constant time.
///
/// Two kinds:
/// - **ingest** tokens ship inside an app, so they are public: one can only upload reports of
///   its app (the report's header names the app), within the collector's limits;
/// - **read** tokens are the team's: listing, fetching and deleting reports, revoking tokens,
///   erasing an install's reports, retention and the kill switch.
///
/// The file has one token a line (`#` begins a comment): `ingest NAME APP-ID DIGEST` or
/// `read NAME DIGEST`. `rewind collect token` makes a token, prints it once, and appends its
/// line. A token revoked through the API stays in the file and is refused by every collector
/// on the store (the store keeps the revocation).
public struct CollectorTokens: Sendable {
    /// What a token may do.
    public enum Kind: String, Sendable, Hashable {
        case ingest, read
    }

    /// One token's line.
    public struct Token: Sendable, Hashable {
        public var kind: Kind
        public var name: String
        /// The app an ingest token uploads for; `nil` for a read token.
        public var app: String?
        /// SHA-256 of the token, 32 bytes.
        public var digest: Data
    }

    public private(set) var tokens: [Token]

    public init(tokens: [Token]) {
        self.tokens = tokens
    }

    /// Reads a tokens file.
    ///
    /// - Throws: `EventLogError` naming the line that is not a token line, a name used twice, a
    ///   digest that is not 64 hex digits, or a missing file.
    public static func reading(file path: String) throws(EventLogError) -> CollectorTokens {
        guard let data = FileManager.default.contents(atPath: path) else { throw .fileNotFound(path: path) }
        guard data.count <= 1 << 20 else { throw .failed(path: path, reason: "a tokens file has at most 1 MiB") }
        var tokens: [Token] = []
        for (index, raw) in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            let fields = line.split(whereSeparator: \.isWhitespace).map(String.init)
            guard !fields.isEmpty else { continue }
            func fail(_ reason: String) -> EventLogError { .failed(path: path, reason: "line \(index + 1): \(reason)") }
            let token: Token
            switch (fields.first, fields.count) {
            case ("ingest", 4): token = Token(kind: .ingest, name: fields[1], app: fields[2], digest: try digest(fields[3], fail))
            case ("read", 3): token = Token(kind: .read, name: fields[1], app: nil, digest: try digest(fields[2], fail))
            default: throw fail("expected `ingest NAME APP-ID DIGEST` or `read NAME DIGEST`")
            }
            guard !tokens.contains(where: { $0.name == token.name }) else { throw fail("the name '\(token.name)' is used twice") }
            tokens.append(token)
        }
        return CollectorTokens(tokens: tokens)
    }

    /// Makes a token: the secret to give (once) and its line for the tokens file.
    public static func make(kind: Kind, name: String, app: String?) -> (secret: String, line: String) {
        let secret = (kind == .ingest ? "rwi_" : "rwr_") + randomBase64URL(count: 32)
        let hex = ReportDigest.hex(of: Data(secret.utf8))
        let line = kind == .ingest ? "ingest \(name) \(app ?? "") \(hex)" : "read \(name) \(hex)"
        return (secret, line)
    }

    /// The token a request's secret is, if any: every token's digest is compared, each in
    /// constant time, so the time taken says nothing of which token nearly matched.
    public func match(_ secret: String) -> Token? {
        let digest = Data(SHA256.hash(data: Data(secret.utf8)))
        var found: Token?
        for token in tokens where Self.constantTimeEqual(token.digest, digest) { found = token }
        return found
    }

    static func constantTimeEqual(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }

    private static func digest(_ hex: String, _ fail: (String) -> EventLogError) throws(EventLogError) -> Data {
        guard hex.count == 64, let bytes = Data(hexString: hex) else { throw fail("a digest is 64 hex digits (SHA-256 of the token)") }
        return bytes
    }

    private static func randomBase64URL(count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = Data((0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        return bytes.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

extension Data {
    fileprivate init?(hexString: String) {
        var bytes: [UInt8] = []
        var iterator = hexString.utf8.makeIterator()
        while let high = iterator.next() {
            guard let low = iterator.next(), let h = Self.nibble(high), let l = Self.nibble(low) else { return nil }
            bytes.append(h << 4 | l)
        }
        self.init(bytes)
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
#endif
