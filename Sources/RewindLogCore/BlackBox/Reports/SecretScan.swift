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

    /// Each secret-looking string in `text`, with its masked sample.
    ///
    /// By hand, over UTF-8 bytes, not with `Regex`: the four patterns as Swift regexes took
    /// about a second over a default report's 1.5 MB of content (release, on this project's
    /// 2-core machine: `rewind-bench --workload report`), on the writer thread at launch, while
    /// the app's first actions wait in the buffer. Each scan below is one pass.
    static func matches(in text: String, planted: [String] = []) -> [(SecretFinding.Kind, String)] {
        var found: [(SecretFinding.Kind, String)] = []
        for secret in planted where !secret.isEmpty && text.contains(secret) {
            found.append((.planted, masked(secret)))
        }
        let bytes = Array(text.utf8)
        found += bearerTokens(in: bytes).map { (.bearerToken, masked($0)) }
        found += jsonWebTokens(in: bytes).map { (.jwt, masked($0)) }
        found += cardNumbers(in: bytes).map { (.cardNumber, "…" + $0.suffix(4) + " (\($0.count) digits)") }
        found += emailAddresses(in: bytes).map { (.email, masked($0)) }
        return found
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
    private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }
    /// base64url's alphabet: a JSON Web Token's parts.
    private static func isBase64URL(_ byte: UInt8) -> Bool { isLetter(byte) || isDigit(byte) || byte == 0x2D || byte == 0x5F }
    /// What a bearer token is made of (RFC 6750's b64token).
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        isLetter(byte) || isDigit(byte) || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E || byte == 0x2B || byte == 0x2F
    }
    private static func isEmailLocal(_ byte: UInt8) -> Bool {
        isLetter(byte) || isDigit(byte) || byte == 0x2E || byte == 0x5F || byte == 0x25 || byte == 0x2B || byte == 0x2D
    }
    private static func isDomainByte(_ byte: UInt8) -> Bool { isLetter(byte) || isDigit(byte) || byte == 0x2D || byte == 0x2E }
    private static func text(_ bytes: ArraySlice<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }

    /// `Bearer` (any case), white space, and 16 or more token characters.
    static func bearerTokens(in bytes: [UInt8]) -> [String] {
        let word = Array("bearer".utf8)
        var found: [String] = []
        var index = 0
        while index + word.count < bytes.count {
            guard bytes[index] | 0x20 == 0x62, zip(word, bytes[index..<(index + word.count)]).allSatisfy({ $0 == $1 | 0x20 }) else {
                index += 1
                continue
            }
            var start = index + word.count
            guard start < bytes.count, bytes[start] == 0x20 || bytes[start] == 0x09 else { index += 1; continue }
            while start < bytes.count, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
            var end = start
            while end < bytes.count, isTokenByte(bytes[end]) { end += 1 }
            while end < bytes.count, bytes[end] == 0x3D { end += 1 }
            if end - start >= 16 { found.append(text(bytes[index..<end])) }
            index = max(end, index + 1)
        }
        return found
    }

    /// Three base64url parts of 8 or more characters joined by dots, the first two beginning
    /// `eyJ` (`{"` encoded).
    static func jsonWebTokens(in bytes: [UInt8]) -> [String] {
        var found: [String] = []
        var index = 0
        func part(from start: Int, json: Bool) -> Int? {
            if json, !(start + 3 <= bytes.count && bytes[start] == 0x65 && bytes[start + 1] == 0x79 && bytes[start + 2] == 0x4A) { return nil }
            var end = start
            while end < bytes.count, isBase64URL(bytes[end]) { end += 1 }
            return end - start >= (json ? 11 : 8) ? end : nil
        }
        while index + 3 <= bytes.count {
            guard bytes[index] == 0x65, index == 0 || !isBase64URL(bytes[index - 1]),
                  let first = part(from: index, json: true), first < bytes.count, bytes[first] == 0x2E,
                  let second = part(from: first + 1, json: true), second < bytes.count, bytes[second] == 0x2E,
                  let third = part(from: second + 1, json: false)
            else {
                index += 1
                continue
            }
            found.append(text(bytes[index..<third]))
            index = third
        }
        return found
    }

    /// 13 to 19 digits, spaces or dashes between them allowed, that pass the Luhn check and are
    /// not part of a longer number: the digits of each.
    static func cardNumbers(in bytes: [UInt8]) -> [String] {
        var found: [String] = []
        var index = 0
        while index < bytes.count {
            guard isDigit(bytes[index]) else { index += 1; continue }
            var digits: [Int] = []
            var end = index
            var lastDigit = index
            while end < bytes.count, digits.count <= 19 {
                let byte = bytes[end]
                if isDigit(byte) {
                    digits.append(Int(byte - 0x30))
                    lastDigit = end
                } else if !(byte == 0x20 || byte == 0x2D) || !(end + 1 < bytes.count && isDigit(bytes[end + 1])) {
                    break
                }
                end += 1
            }
            // Part of a longer number, a decimal or a version: not a card.
            // Glued to a letter, a run is part of a word or of hex (a UUID's groups): not a card.
            let attached = lastDigit + 1 < bytes.count && (isDigit(bytes[lastDigit + 1]) || isLetter(bytes[lastDigit + 1])
                || bytes[lastDigit + 1] == 0x2E && lastDigit + 2 < bytes.count && isDigit(bytes[lastDigit + 2]))
            let after = index > 0 && (bytes[index - 1] == 0x2E || isLetter(bytes[index - 1]))
            if (13...19).contains(digits.count), !attached, !after, luhn(digits) {
                found.append(digits.map(String.init).joined())
            }
            // Skip the whole run, however long.
            end = lastDigit + 1
            while end < bytes.count, isDigit(bytes[end]) { end += 1 }
            index = end
        }
        return found
    }

    /// A local part, `@`, and a domain of two or more labels ending in 2 to 24 letters.
    static func emailAddresses(in bytes: [UInt8]) -> [String] {
        var found: [String] = []
        var lastEnd = 0
        for at in bytes.indices where bytes[at] == 0x40 && at >= lastEnd {
            var start = at
            while start > lastEnd, at - start < 64, isEmailLocal(bytes[start - 1]) { start -= 1 }
            var end = at + 1
            while end < bytes.count, end - at <= 253, isDomainByte(bytes[end]) { end += 1 }
            // Trailing dots belong to the sentence, not the address.
            while end > at + 1, bytes[end - 1] == 0x2E || bytes[end - 1] == 0x2D { end -= 1 }
            guard start < at, end > at + 1 else { continue }
            let domain = bytes[(at + 1)..<end]
            guard let dot = domain.lastIndex(of: 0x2E), dot > at + 1 else { continue }
            let topLevel = bytes[(dot + 1)..<end]
            guard (2...24).contains(topLevel.count), topLevel.allSatisfy(isLetter) else { continue }
            found.append(text(bytes[start..<end]))
            lastEnd = end
        }
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
