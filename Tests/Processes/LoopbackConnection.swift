public import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A raw TCP connection to 127.0.0.1, for clients no HTTP library would be — one that trickles
/// its request a byte at a time — and for a load's client, which must cost little beside the
/// server it measures: requests out on a keep-alive connection, statuses back.
public final class LoopbackConnection {
    private let descriptor: Int32
    private var buffer: [UInt8] = []

    public init(port: Int) throws {
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

    /// Sends a request (its head, then its body) and reads its response: the status, or `nil`
    /// when the connection failed. The connection stays open for the next.
    public func exchange(head: [UInt8], body: Data) -> Int? {
        guard sendAll(head), body.withUnsafeBytes({ sendAll($0) }) else { return nil }
        // The head, up to its blank line; then Content-Length bytes of body.
        var headEnd: Int?
        while headEnd == nil {
            guard receive() else { return nil }
            headEnd = find([13, 10, 13, 10])
        }
        let text = String(decoding: buffer[0..<headEnd!], as: UTF8.self)
        let status = Int(text.split(separator: " ").dropFirst().first ?? "")
        let length = text.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") } ?? 0
        let total = headEnd! + 4 + length
        while buffer.count < total { guard receive() else { return nil } }
        buffer.removeFirst(total)
        return status
    }

    private func sendAll(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBytes { sendAll($0) } }

    private func sendAll(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = sendBytes(descriptor, bytes.baseAddress! + sent, bytes.count - sent, noSignal)
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    private func receive() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16_384)
        let count = recv(descriptor, &chunk, chunk.count, 0)
        guard count > 0 else { return false }
        buffer += chunk[0..<count]
        return true
    }

    private func find(_ pattern: [UInt8]) -> Int? {
        guard buffer.count >= pattern.count else { return nil }
        for index in 0...(buffer.count - pattern.count) where buffer[index] == pattern[0] && Array(buffer[index..<(index + pattern.count)]) == pattern {
            return index
        }
        return nil
    }

    /// Everything the peer sends until it closes the connection (at most 10 s), as text.
    public func receiveAll() -> String {
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
    public func send(_ bytes: [UInt8]) -> Bool {
        let sent = bytes.withUnsafeBytes { sendBytes(descriptor, $0.baseAddress, $0.count, noSignal) }
        if sent <= 0 { return false }
        // A closed peer answers a send with RST; the next one fails. Peek for EOF as well.
        var probe: UInt8 = 0
        let peeked = recv(descriptor, &probe, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return !(peeked == 0)
    }
}

#if canImport(Glibc)
private let sendBytes = Glibc.send
/// A closed peer is an answer here, not a SIGPIPE.
private let noSignal = Int32(MSG_NOSIGNAL)
#else
private let sendBytes = Darwin.send
private let noSignal: Int32 = 0
#endif
