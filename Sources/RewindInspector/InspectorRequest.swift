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
