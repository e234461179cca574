import FlyingFox
import FlyingSocks
public import Foundation

extension Inspector {
    /// Serves the inspector until the task is cancelled.
    ///
    /// - Parameters:
    ///   - host: The address to listen on: an IPv4 or IPv6 literal, or `localhost`.
    ///     Loopback (`127.0.0.1`, the default) keeps the log on this machine; any other
    ///     address lets the network in (the token still guards the API).
    ///   - port: The port; 0 picks a free one.
    ///   - listening: Called once, with the page's URL (token included), when the server
    ///     accepts connections.
    /// - Throws: When the address cannot be used (taken, not this machine's, not an address).
    public func serve(host: String = "127.0.0.1", port: UInt16 = 0, listening: @Sendable (URL) -> Void) async throws {
        do {
            try await run(host: host, port: port, listening: listening)
        } catch let error as SocketError {
            // The socket layer's own words ("Address already in use"), not its enum's.
            throw ListenError(description: error.errorDescription ?? "\(error)")
        }
    }

    /// Why the inspector could not listen.
    public struct ListenError: Error, CustomStringConvertible {
        public var description: String
    }

    private func run(host: String, port: UInt16, listening: @Sendable (URL) -> Void) async throws {
        let literal = host == "localhost" ? "127.0.0.1" : host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        let server: HTTPServer
        do {
            if literal.contains(":") {
                server = HTTPServer(address: try .inet6(ip6: literal, port: port), logger: .disabled, handler: FlyingFoxHandler(inspector: self))
            } else {
                server = HTTPServer(address: try .inet(ip4: literal, port: port), logger: .disabled, handler: FlyingFoxHandler(inspector: self))
            }
        } catch {
            throw ListenError(description: "'\(host)' is not an IPv4 or IPv6 address, nor localhost")
        }
        // The server's run and the wait for it to listen race: an address in use ends the run
        // at once with the reason, which must not wait out the listening timeout.
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask { try await server.run(); return false }
            group.addTask { try await server.waitUntilListening(timeout: 30); return true }
            guard try await group.next() == true else { return }
            switch await server.listeningAddress {
            case let .ip4(_, bound)?, let .ip6(_, bound)?: announce(host: host, literal: literal, port: bound, listening: listening)
            default: announce(host: host, literal: literal, port: port, listening: listening)
            }
            while try await group.next() != nil {}
        }
    }

    private func announce(host: String, literal: String, port: UInt16, listening: (URL) -> Void) {
        allow(host: host, port: Int(port))
        allow(host: literal, port: Int(port))
        let name = literal.contains(":") ? "[\(literal)]" : literal
        listening(URL(string: "http://\(name):\(port)/?token=\(token)")!)
    }
}

/// Hands FlyingFox's requests to ``Inspector/respond(to:)`` and its answers back.
private struct FlyingFoxHandler: HTTPHandler {
    let inspector: Inspector

    func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
        var headers: [String: String] = [:]
        for (name, value) in request.headers { headers[name.rawValue.lowercased()] = value }
        let response = await inspector.respond(to: InspectorRequest(method: request.method.rawValue, target: request.target.rawValue, headers: headers))
        var out = HTTPHeaders()
        for (name, value) in response.headers { out[HTTPHeader(name)] = value }
        // One connection per request: FlyingFox writes a response's header and body in two
        // writes, and on a kept-alive connection Nagle's algorithm then holds the body until
        // the client's delayed ACK, 40 ms later (measured: 45 ms a call kept alive, 5 ms on a
        // fresh connection). A new loopback connection costs far less than that.
        out[.connection] = "close"
        return HTTPResponse(statusCode: HTTPStatusCode(response.status, phrase: Self.phrase(response.status)), headers: out, body: request.method == .HEAD ? Data() : response.body)
    }

    private static func phrase(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 202: "Accepted"
        case 204: "No Content"
        case 400: "Bad Request"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 421: "Misdirected Request"
        case 422: "Unprocessable Content"
        case 503: "Service Unavailable"
        default: "Internal Server Error"
        }
    }
}
