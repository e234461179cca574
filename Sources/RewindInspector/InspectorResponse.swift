public import Foundation

/// An HTTP response from the inspector: a status, headers and a body.
public struct InspectorResponse: Sendable {
    /// 200, 400, 403, …
    public var status: Int
    /// The headers, by lowercased name.
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String] = [:], body: Data) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
        self.body = body
    }

    /// A JSON document.
    public static func json(_ body: Data, status: Int = 200) -> InspectorResponse {
        InspectorResponse(status: status, headers: ["Content-Type": "application/json; charset=utf-8"], body: body)
    }

    /// An error as the API reports it: `{"error": "…"}`, with the message the CLI would print.
    ///
    /// - Parameters:
    ///   - message: What went wrong, for a person.
    ///   - status: 400 for a bad call (a missing or odd parameter), 404 for something that
    ///     is not there (an unknown endpoint or seq), 422 for a log that cannot be read.
    public static func error(_ message: String, status: Int) -> InspectorResponse {
        let body = (try? JSONSerialization.data(withJSONObject: ["error": message], options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return json(body, status: status)
    }

    /// The value of header `name` (any case).
    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }
}
