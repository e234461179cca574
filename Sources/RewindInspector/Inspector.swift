import Foundation
import Synchronization

/// The time-travel inspector's web side: the page, and the API it calls, behind the checks
/// that keep a local server local.
///
/// ```swift
/// let inspector = Inspector(api: myAPI, title: "shop.rewind")
/// try await inspector.serve { url in print("open \(url)") }
/// ```
///
/// Every response goes through ``respond(to:)``, which tests call directly (no socket):
///
/// - The `Host` header must name the address the server listens on (`127.0.0.1:PORT`,
///   `localhost:PORT`, …): a page on another site that rebinds its DNS name to 127.0.0.1 sends
///   its own name, and is refused (421).
/// - A random token, made per launch, is part of the URL the server prints; the page (`/`)
///   needs it in its query and every API call in the `X-Rewind-Token` header (403 otherwise).
///   Other sites cannot read it, so they cannot call the API.
/// - Only `GET` and `HEAD` are served: the inspector never changes anything.
///
/// Every API call runs as an ``InspectorJob``: a call that takes longer than
/// ``Limits/answerWithin`` is answered `202 Accepted` with `{"job": ID, "progress": …}`, and
/// `GET /api/job?id=ID` answers with the call's own answer once it is there (another `202`
/// until then). A job nobody asks about for ``Limits/abandonAfter`` is cancelled.
public final class Inspector: Sendable {
    /// The token of this launch: the URL's `token` query item, and every API call's
    /// `X-Rewind-Token` header.
    public let token: String
    /// The page's title (the log's file name).
    public let title: String
    /// Whether the page opens on the Reports view (``InspectorAPI/listsReports``).
    let listsReports: Bool
    let jobs: InspectorJobs
    private let hosts: Mutex<Set<String>>
    /// The port of a wildcard address (`0.0.0.0`, `::`) the server listens on, if it does: any
    /// IP literal on that port is then accepted as `Host`.
    private let wildcardPort = Mutex<Int?>(nil)

    /// An inspector over `api`.
    ///
    /// - Parameters:
    ///   - api: What answers the API calls.
    ///   - title: The page's title.
    ///   - token: The launch's token (a new random one unless given, for tests).
    ///   - hosts: The `Host` values to accept, `host:port`; ``serve(host:port:listening:)``
    ///     adds its own once it listens.
    ///   - limits: How long a call is answered on its own request, and how many run at once.
    public init(api: any InspectorAPI, title: String, token: String = Inspector.makeToken(), hosts: Set<String> = [], limits: Limits = Limits()) {
        self.jobs = InspectorJobs(api: api, limits: limits)
        self.title = title
        self.listsReports = api.listsReports
        self.token = token
        self.hosts = Mutex(Set(hosts.map { $0.lowercased() }))
    }

    /// A new token: 32 random bytes from the system's secure generator, as 64 hex digits.
    public static func makeToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &generator)) }.joined()
    }

    /// Accepts `Host` headers naming `host` on `port` (and, for a loopback address, the
    /// other spellings of loopback).
    func allow(host: String, port: Int) {
        if ["0.0.0.0", "::", "[::]"].contains(host) { wildcardPort.withLock { $0 = port } }
        var names: Set<String> = [host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host]
        // Loopback is reachable by all its spellings, on a loopback or a wildcard address.
        if ["127.0.0.1", "localhost", "::1", "[::1]", "0.0.0.0", "::", "[::]"].contains(host) { names.formUnion(["127.0.0.1", "localhost", "[::1]"]) }
        let values = names.flatMap { name in port == 80 ? [name, "\(name):80"] : ["\(name):\(port)"] }
        hosts.withLock { $0.formUnion(values.map { $0.lowercased() }) }
    }

    /// The response to `request`: the page, one of its files, or an API call's answer.
    public func respond(to request: InspectorRequest) async -> InspectorResponse {
        var response = await route(request)
        response.headers.merge(Self.securityHeaders) { own, _ in own }
        return response
    }

    private func route(_ request: InspectorRequest) async -> InspectorResponse {
        let host = (request.headers["host"] ?? "").lowercased()
        guard hosts.withLock({ $0.contains(host) }) || isIPLiteralOnWildcardPort(host) else {
            return .text("This inspector answers only to the address it printed (the request named the host '\(host)').", status: 421)
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            return .text("The inspector only reads: \(request.method) is not served.", status: 405)
        }
        guard let path = request.path else { return .text("Not a request target: \(request.target)", status: 400) }
        switch path {
        case "/":
            guard Self.same(request.queryItems.last(where: { $0.name == "token" })?.value, token) else {
                return .text("Open the inspector with the URL `rewind serve` printed: it holds this launch's token.", status: 403)
            }
            return InspectorPage.html(title: title, view: listsReports ? "reports" : "log")
        case "/inspector.js":
            return InspectorPage.script
        case "/inspector.css":
            return InspectorPage.style
        case "/favicon.ico":
            // Browsers ask for one; "no content" keeps their consoles free of a 404.
            return InspectorResponse(status: 204, body: Data())
        case _ where path.hasPrefix("/api/"):
            guard Self.same(request.headers["x-rewind-token"], token) else {
                return .error("missing or wrong X-Rewind-Token header: the page sends the token of the URL `rewind serve` printed", status: 403)
            }
            let call = InspectorCall(endpoint: String(path.dropFirst("/api/".count)), parameters: request.queryItems)
            var response = if call.endpoint == "job" {
                await jobs.poll(call["id"] ?? "")
            } else {
                await jobs.answer(call)
            }
            response.headers["cache-control"] = "no-store"
            return response
        default:
            return .text("Nothing at \(path).", status: 404)
        }
    }

    /// Whether `host` is `IP:PORT` for the wildcard address's port. Listening on every address,
    /// the server cannot know the names it is reached by; DNS rebinding needs a name, so any IP
    /// literal (the machine's LAN address) is safe to accept, and names still are not.
    private func isIPLiteralOnWildcardPort(_ host: String) -> Bool {
        guard let port = wildcardPort.withLock({ $0 }) else { return false }
        let name: Substring
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]"), host[host.index(after: close)...] == ":\(port)" else { return false }
            name = host[host.index(after: host.startIndex)..<close]
            return name.contains(":") && name.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
        }
        guard host.hasSuffix(":\(port)") else { return false }
        name = host.dropLast(":\(port)".count)
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isNumber) && Int(part).map { $0 <= 255 } == true }
    }

    /// Compares in time that does not depend on where the strings first differ.
    private static func same(_ given: String?, _ expected: String) -> Bool {
        guard let given else { return false }
        let a = Array(given.utf8), b = Array(expected.utf8)
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// Sent with every response: no framing by other sites, no sniffing, no referrer carrying
    /// the token away, and scripts only from the inspector itself.
    static let securityHeaders = [
        "x-frame-options": "DENY",
        "x-content-type-options": "nosniff",
        "referrer-policy": "no-referrer",
        "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    ]
}

extension InspectorResponse {
    /// Plain text, for the page's own errors (a person reads them in the browser).
    static func text(_ message: String, status: Int) -> InspectorResponse {
        InspectorResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Data((message + "\n").utf8))
    }
}
