import Foundation

/// An HTTP request as the inspector sees it: what ``Inspector/respond(to:)`` takes, so tests
/// drive the whole inspector (host and token checks, the page, the API) without a socket.
public struct InspectorRequest: Sendable {
    /// `GET`, `HEAD`, …
    public var method: String
    /// The request target: the path and the query, `/api/state?at=12`.
    public var target: String
    /// The headers, by lowercased name.
    public var headers: [String: String]

    public init(method: String = "GET", target: String, headers: [String: String] = [:]) {
        self.method = method
        self.target = target
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
    }

    /// The target's path, percent-decoded (`nil` when the target cannot be parsed).
    var path: String? {
        URLComponents(string: target)?.path
    }

    /// The target's query items, in order, `+` read as a space (as browsers' forms send it).
    var queryItems: [InspectorCall.Parameter] {
        guard let components = URLComponents(string: target.replacingOccurrences(of: "+", with: "%20")) else { return [] }
        return (components.queryItems ?? []).map { .init(name: $0.name, value: $0.value ?? "") }
    }
}

extension InspectorRequest {
    /// Why a request was answered before it reached the inspector.
    enum Refusal: Error, Equatable {
        /// Its line and headers took more than ``InspectorServer/headLimit`` bytes.
        case headTooLarge
        /// Its head did not arrive within ``InspectorServer/headWithin``.
        case tooSlow
        /// It is not an HTTP/1 request the inspector reads: why, for the client.
        case malformed(String)

        var response: InspectorResponse {
            switch self {
            case .headTooLarge:
                .text("The request's line and headers are over \(InspectorServer.headLimit) bytes.", status: 431)
            case .tooSlow:
                .text("The request's head did not arrive within \(Int(InspectorServer.headWithin.components.seconds)) seconds.", status: 408)
            case let .malformed(why):
                .text("Not a request the inspector reads: \(why).", status: 400)
            }
        }
    }

    /// The request in `head`: a request line and headers, each line ending in CRLF (or LF, as
    /// RFC 9112 lets a server accept), up to the blank line.
    static func parse(head: [UInt8]) -> Result<InspectorRequest, Refusal> {
        var lines = head.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { line in
            line.last == UInt8(ascii: "\r") ? line.dropLast() : line
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let first = lines.first else { return .failure(.malformed("no request line")) }
        let parts = first.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3 else { return .failure(.malformed("the request line is not METHOD TARGET VERSION")) }
        let method = String(decoding: parts[0], as: UTF8.self)
        let target = String(decoding: parts[1], as: UTF8.self)
        let version = String(decoding: parts[2], as: UTF8.self)
        guard !method.isEmpty, method.utf8.allSatisfy(isTokenByte) else { return .failure(.malformed("'\(method.prefix(32))' is not a method")) }
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else { return .failure(.malformed("'\(version.prefix(32))' is not HTTP/1.0 or HTTP/1.1")) }
        guard target.hasPrefix("/"), parts[1].allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .failure(.malformed("the target must be a path, as /api/head?x=1"))
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            // A folded line (RFC 9112 §5.2: obsolete) or a name without a colon.
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), line.first != UInt8(ascii: " "), line.first != UInt8(ascii: "\t") else {
                return .failure(.malformed("a header line is not NAME: VALUE"))
            }
            let name = line[..<colon]
            guard !name.isEmpty, name.allSatisfy(isTokenByte) else { return .failure(.malformed("a header's name is not a token")) }
            let key = String(decoding: name, as: UTF8.self).lowercased()
            let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingCharacters(in: .init(charactersIn: " \t"))
            // Two Hosts could name two servers: RFC 9112 §3.2 asks for a 400.
            if key == "host", headers[key] != nil { return .failure(.malformed("more than one Host header")) }
            headers[key] = headers[key].map { "\($0), \(value)" } ?? value
        }
        // No body is read: a request that sends one is refused rather than misread.
        if headers["transfer-encoding"] != nil || (headers["content-length"].map { $0 != "0" } ?? false) {
            return .failure(.malformed("the inspector takes no request body"))
        }
        return .success(InspectorRequest(method: method, target: target, headers: headers))
    }

    /// Whether `byte` may appear in a method or a header name (RFC 9110 §5.6.2's `tchar`).
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}
