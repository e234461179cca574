import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP proxy on 127.0.0.1 in front of a PostgreSQL server, which cuts every connection through
/// it once its client has sent `cutAfter` bytes: a server going away at a chosen point of a
/// stream. With `farewell`, the client is first told what a server shutting down tells it (a
/// `FATAL` error, SQLSTATE 57P01, as `pg_ctl restart` sends) — safe to slip in only where the
/// server is sending nothing, as in the middle of a `COPY FROM STDIN`; without, the connection
/// just ends.
final class CuttingProxy: Sendable {
    let port: Int
    private let listener: Int32
    private let stopped = Atomic<Bool>(false)

    init(to upstreamPort: Int, cutAfter: Int, farewell: Bool) throws {
        let listener = socket(AF_INET, Self.stream, 0)
        guard listener >= 0 else { throw POSIXError(.EIO) }
        self.listener = listener
        var address = Self.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        guard withUnsafePointer(to: &address, { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } }) == 0,
              listen(listener, 8) == 0,
              withUnsafeMutablePointer(to: &address, { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }) == 0 else {
            close(listener)
            throw POSIXError(.EADDRINUSE)
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in
            while !stopped.load(ordering: .relaxed) {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { return }
                let server = socket(AF_INET, Self.stream, 0)
                var upstream = Self.loopback(port: upstreamPort)
                guard withUnsafePointer(to: &upstream, { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }) == 0 else {
                    close(client)
                    close(server)
                    continue
                }
                // Client to server, counted: past `cutAfter`, both ends are shut.
                Thread.detachNewThread { Self.pump(from: client, to: server, cutAfter: cutAfter, farewell: farewell) }
                Thread.detachNewThread { Self.pump(from: server, to: client, cutAfter: .max, farewell: false) }
            }
        }
    }

    /// Stops taking connections (those through it end with their ends).
    func stop() {
        stopped.store(true, ordering: .relaxed)
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private static func pump(from source: Int32, to destination: Int32, cutAfter: Int, farewell: Bool) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var total = 0
        while true {
            let read = buffer.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
            guard read > 0 else { break }
            total += read
            guard total < cutAfter else {
                if farewell { sendAll(shutdownError, to: source) }
                break
            }
            guard sendAll(buffer[..<read], to: destination) else { break }
        }
        // Both ends, both ways: the other pump ends too.
        shutdown(source, Int32(SHUT_RDWR))
        shutdown(destination, Int32(SHUT_RDWR))
    }

    @discardableResult
    private static func sendAll(_ bytes: some Collection<UInt8>, to descriptor: Int32) -> Bool {
        let bytes = Array(bytes)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress! + offset, bytes.count - offset, noSignal) }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// An `ErrorResponse` message: severity FATAL, SQLSTATE 57P01, the server's words.
    private static let shutdownError: [UInt8] = {
        var fields: [UInt8] = []
        for (code, text) in [("S", "FATAL"), ("V", "FATAL"), ("C", "57P01"), ("M", "terminating connection due to administrator command")] {
            fields += Array(code.utf8) + Array(text.utf8) + [0]
        }
        fields.append(0)
        let length = UInt32(fields.count + 4)
        return [UInt8(ascii: "E")] + withUnsafeBytes(of: length.bigEndian, Array.init) + fields
    }()

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    #if canImport(Glibc)
    private static let stream = Int32(SOCK_STREAM.rawValue)
    private static let noSignal = Int32(MSG_NOSIGNAL)
    #else
    private static let stream = SOCK_STREAM
    private static let noSignal: Int32 = 0
    #endif
}
