import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A raw TCP connection to 127.0.0.1, for clients no HTTP library would be: one that trickles
/// its request a byte at a time.
final class LoopbackSocket {
    private let descriptor: Int32

    init(port: Int) throws {
        #if canImport(Glibc)
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    deinit { close(descriptor) }

    /// Everything the peer sends until it closes the connection (at most 10 s), as text.
    func receiveAll() -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            received += buffer[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// Sends `bytes`; false once the peer has closed the connection.
    func send(_ bytes: [UInt8]) -> Bool {
        // MSG_NOSIGNAL: a closed peer is an answer here, not a SIGPIPE.
        #if canImport(Glibc)
        let flags = Int32(MSG_NOSIGNAL)
        #else
        let flags: Int32 = 0
        #endif
        let sent = bytes.withUnsafeBytes { sendBytes(descriptor, $0.baseAddress, $0.count, flags) }
        if sent <= 0 { return false }
        // A closed peer answers a send with RST; the next one fails. Peek for EOF as well.
        var probe: UInt8 = 0
        let peeked = recv(descriptor, &probe, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return !(peeked == 0)
    }
}

#if canImport(Glibc)
private let sendBytes = Glibc.send
#else
private let sendBytes = Darwin.send
#endif
