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
        let server = InspectorServer(inspector: self)
        let announce = { (bound: UInt16) in
            self.allow(host: host, port: Int(bound))
            self.allow(host: literal, port: Int(bound))
            let name = literal.contains(":") ? "[\(literal)]" : literal
            listening(URL(string: "http://\(name):\(bound)/?token=\(self.token)")!)
        }
        if literal.contains(":") {
            guard let address = try? sockaddr_in6.inet6(ip6: literal, port: port) else { throw Self.notAnAddress(host) }
            try await server.run(on: address, listening: announce)
        } else {
            guard let address = try? sockaddr_in.inet(ip4: literal, port: port) else { throw Self.notAnAddress(host) }
            try await server.run(on: address, listening: announce)
        }
    }

    private static func notAnAddress(_ host: String) -> ListenError {
        ListenError(description: "'\(host)' is not an IPv4 or IPv6 address, nor localhost")
    }
}
