public import Foundation

/// A string in a report's content that looks like a secret, as the scan found it: its kind,
/// where it is, and a masked sample — never the string itself.
public struct SecretFinding: Codable, Sendable, Hashable, CustomStringConvertible {
    /// What it looks like.
    public enum Kind: String, Codable, Sendable, Hashable, CaseIterable {
        /// `Bearer` and a token.
        case bearerToken
        /// A JSON Web Token (three base64url parts, the first two JSON).
        case jwt
        /// 13 to 19 digits that pass the Luhn check.
        case cardNumber
        /// An email address.
        case email
        /// A string the caller planted to prove it is kept out (`assertNoSecrets`).
        case planted
    }

    public var kind: Kind
    /// The line of the content it is in: `event`, `snapshot` (or `session`, `report`).
    public var line: String
    /// The seq of that event or snapshot, when it has one.
    public var seq: Int64?
    /// Enough to recognise it by, never enough to use: its first characters or a card's last
    /// four digits, and its length.
    public var sample: String

    public init(kind: Kind, line: String, seq: Int64?, sample: String) {
        self.kind = kind
        self.line = line
        self.seq = seq
        self.sample = sample
    }

    public var description: String {
        "\(kind.rawValue) in the \(line)\(seq.map { " at seq \($0)" } ?? ""): \(sample)"
    }
}

/// The scan for secret-looking strings in what a report would reveal (``ReportPreview``): bearer
/// tokens, JSON Web Tokens, card numbers and email addresses in the text of its payloads,
/// states, notes and info. A payload of a binary codec is scanned for the text in it as UTF-8;
/// a session encrypted at rest is sealed as stored and has nothing to find.
///
/// A heuristic, not a proof: it finds the common shapes (and false positives, such as a
/// 16-digit order number that passes the Luhn check), not a secret in a shape of its own. Prove
/// that redaction keeps the app's own secrets out with `assertNoSecrets` in RewindTesting.
public enum SecretScan {
    /// The most findings a report's details list (the count of the rest is lost, not the
    /// report): a bound on what a window full of email addresses adds to it.
    public static let largestReported = 100

    /// The findings in a report's content (JSON Lines: the report line, then a portable
    /// export), in order; `planted` strings are found wherever they are, as they are.
    public static func findings(in content: Data, planted: [String] = []) -> [SecretFinding] {
        var findings: [SecretFinding] = []
        let decoder = JSONDecoder()
        for line in content.split(separator: 0x0A, omittingEmptySubsequences: true) {
            let place = try? decoder.decode(Place.self, from: line)
            // Base64 payloads (binary codecs) are scanned as the bytes they hold.
            var text = String(decoding: line, as: UTF8.self)
            if place?.encoding == "base64", let payload = place?.payload ?? place?.state, let bytes = Data(base64Encoded: payload) {
                text += "\n" + String(decoding: bytes, as: UTF8.self)
            }
            for (kind, sample) in matches(in: text, planted: planted) {
                findings.append(SecretFinding(kind: kind, line: place?.type ?? "line", seq: place?.seq, sample: sample))
            }
        }
        return findings
    }

    /// What a line's type, seq and encoded bytes are.
    private struct Place: Decodable {
        var type: String
        var seq: Int64?
        var encoding: String?
        var payload: String?
        var state: String?
    }

    // The patterns, as literals the compiler checks (no pattern can fail to compile in an
    // app). JSON escapes a string's quotes and slashes, so the patterns stop at them, as at any
    // character that cannot be part of what they find. (`Regex` is not `Sendable`; these are
    // never mutated.)
    nonisolated(unsafe) private static let bearer = #/(?i)bearer\s+[A-Za-z0-9\-._~+]{16,}=*/#
    nonisolated(unsafe) private static let jwt = #/eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}/#
    // A run of digits, spaces and dashes, leftmost and longest: it never begins just after a
    // digit. Its digits are counted and checked below.
    nonisolated(unsafe) private static let card = #/[0-9][0-9 \-]{11,40}[0-9]/#
    nonisolated(unsafe) private static let email = #/[A-Za-z0-9._%+\-]{1,64}@[A-Za-z0-9\-]{1,63}(?:\.[A-Za-z0-9\-]{1,63})*\.[A-Za-z]{2,24}/#

    /// Each secret-looking string in `text`, with its masked sample.
    static func matches(in text: String, planted: [String] = []) -> [(SecretFinding.Kind, String)] {
        var found: [(SecretFinding.Kind, String)] = []
        for secret in planted where !secret.isEmpty && text.contains(secret) {
            found.append((.planted, masked(secret)))
        }
        for match in text.matches(of: bearer) { found.append((.bearerToken, masked(String(text[match.range])))) }
        for match in text.matches(of: jwt) { found.append((.jwt, masked(String(text[match.range])))) }
        for match in text.matches(of: card) {
            let digits = text[match.range].compactMap(\.wholeNumberValue)
            if (13...19).contains(digits.count), luhn(digits) {
                found.append((.cardNumber, "…" + digits.suffix(4).map(String.init).joined() + " (\(digits.count) digits)"))
            }
        }
        for match in text.matches(of: email) { found.append((.email, masked(String(text[match.range])))) }
        return found
    }

    /// Its first four characters and its length.
    private static func masked(_ secret: String) -> String {
        String(secret.prefix(4)) + "… (\(secret.count) characters)"
    }

    /// The Luhn check every card number passes.
    static func luhn(_ digits: [Int]) -> Bool {
        var sum = 0
        for (index, digit) in digits.reversed().enumerated() {
            let value = index % 2 == 1 ? digit * 2 : digit
            sum += value > 9 ? value - 9 : value
        }
        return sum % 10 == 0
    }
}
