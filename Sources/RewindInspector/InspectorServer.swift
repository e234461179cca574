import FlyingSocks
import Foundation

/// The inspector's HTTP/1.1 server: on each connection it reads one request head, within
/// bounds of size and time, answers it through ``Inspector/respond(to:)`` and closes.
///
/// Written on FlyingSocks' sockets rather than with FlyingFox's `HTTPServer`, from the same
/// package: FlyingFox 0.27's request decoder has no bound on a request line or a header, and
/// looks at the whole line again for every byte it reads, so a client sending one long header
/// (or a web page asking for a long URL) held a core for as long as the line was long to the
/// square (measured: a 20 KB header, over 3 s of a core in a debug build; 300 KB, minutes),
/// and a connection that sends nothing was kept for ever. The inspector serves `GET` and `HEAD`
/// without bodies, so the part of HTTP it needs is this file.
struct InspectorServer: Sendable {
    /// The most bytes a request's line and headers may take (a browser sends under 2 KB).
    static let headLimit = 16 * 1_024
    /// How long a client has to send its request head once connected.
    static let headWithin: Duration = .seconds(10)
    /// How long a client has to take the answer.
    static let answerWithin: Duration = .seconds(60)

    let inspector: Inspector

    /// Listens on `address` and serves connections until the task is cancelled; `listening`
    /// is called with the bound port once it accepts connections.
    func run(on address: some SocketAddress, listening: (UInt16) -> Void) async throws {
        let socket = try Socket(domain: Int32(type(of: address).family))
        try socket.setValue(true, for: .localAddressReuse)
        try socket.bind(to: address)
        try socket.listen()
        let port: UInt16 = switch try socket.sockname() {
        case let .ip4(_, port), let .ip6(_, port): port
        default: 0
        }
        let pool: some AsyncSocketPool = .make()
        try await pool.prepare()
        let listener = try AsyncSocket(socket: socket, pool: pool)
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { try await pool.run() }
            listening(port)
            // When the task is cancelled, the pool stops and `sockets` ends.
            defer { try? listener.close() }
            for try await connection in listener.sockets {
                group.addTask { await serve(connection) }
            }
            throw SocketError.disconnected
        }
    }

    /// Answers the one request on `connection`, then closes it.
    private func serve(_ connection: AsyncSocket) async {
        defer { try? connection.close() }
        #if canImport(Darwin)
        try? connection.socket.setValue(true, for: .noSIGPIPE)
        #endif
        var response: InspectorResponse
        do {
            let head = try await within(Self.headWithin) { try await Self.readHead(from: connection) }
            switch InspectorRequest.parse(head: head) {
            case let .success(request):
                let answer = Self.encode(await inspector.respond(to: request), for: request.method)
                try? await within(Self.answerWithin) { try await connection.write(answer) }
                return
            case let .failure(refusal):
                response = refusal.response
            }
        } catch let refusal as InspectorRequest.Refusal {
            response = refusal.response
        } catch {
            // Gone before its head was whole: nobody to answer.
            return
        }
        // A refusal is written once, without waiting on a client that does not read it.
        response.headers.merge(Inspector.securityHeaders) { own, _ in own }
        _ = try? connection.socket.write(Self.encode(response, for: "GET"))
    }

    /// The bytes up to and including the blank line that ends a request head.
    private static func readHead(from connection: AsyncSocket) async throws -> [UInt8] {
        var head: [UInt8] = []
        // Where to look for the end next: what was read before cannot hold all of it.
        var searchedTo = 0
        while true {
            let chunk = try await connection.read(atMost: 4_096)
            head += chunk
            if let end = Self.endOfHead(in: head, from: max(0, searchedTo - 3)) {
                return Array(head[..<end])
            }
            searchedTo = head.count
            if head.count > headLimit { throw InspectorRequest.Refusal.headTooLarge }
        }
    }

    /// Where the head ends (after `\r\n\r\n`, or `\n\n` from a lenient client), looking from
    /// `start` on.
    static func endOfHead(in bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\n") {
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\n") { return index + 2 }
                if index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "\r"), bytes[index + 2] == UInt8(ascii: "\n") { return index + 3 }
            }
            index += 1
        }
        return nil
    }

    /// `response` as bytes, in one write: status line, headers, body (none for `HEAD`).
    static func encode(_ response: InspectorResponse, for method: String) -> Data {
        var head = "HTTP/1.1 \(response.status) \(phrase(response.status))\r\n"
        for (name, value) in response.headers.sorted(by: { $0.key < $1.key }) where name != "content-length" && name != "connection" {
            head += "\(name): \(value)\r\n"
        }
        // One request per connection: the page's calls are a few a second, on loopback.
        head += "content-length: \(response.body.count)\r\nconnection: close\r\n\r\n"
        var bytes = Data(head.utf8)
        if method != "HEAD" { bytes.append(response.body) }
        return bytes
    }

    /// Runs `body`, cancelled (and throwing ``InspectorRequest/Refusal/tooSlow``) after `limit`.
    private func within<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            guard let value = try await group.next(), let value else { throw InspectorRequest.Refusal.tooSlow }
            return value
        }
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
        case 408: "Request Timeout"
        case 421: "Misdirected Request"
        case 422: "Unprocessable Content"
        case 431: "Request Header Fields Too Large"
        case 503: "Service Unavailable"
        default: "Internal Server Error"
        }
    }
}
