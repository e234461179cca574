#if MCP
import Foundation
import Logging
import MCP
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// MCP's stdio transport for `rewind mcp`: one JSON-RPC message a line, read from `input` and
/// written to `output`.
///
/// By hand rather than the SDK's `StdioTransport`, for two promises it does not keep: a line
/// is at most ``maxMessageBytes`` (the SDK's reader buffers a line without end until memory
/// runs out; here a longer one is dropped, said on standard error, and reading goes on), and
/// the descriptors stay blocking (the SDK sets O_NONBLOCK on standard input, a flag of the open
/// file that the client's other children share). Reading runs on a thread of its own.
///
/// It also knows which requests are still unanswered, so that a client that sends its last
/// request and closes its end gets the answer before the server ends (``drained()``).
actor AgentTransport: Transport {
    nonisolated let logger = Logger(label: "rewind.mcp", factory: { _ in SwiftLogNoOpLogHandler() })
    /// The longest message read, in bytes.
    static let maxMessageBytes = 4 << 20

    private let input: Int32
    private let output: Int32
    private let messages: AsyncThrowingStream<Data, any Error>
    private let continuation: AsyncThrowingStream<Data, any Error>.Continuation
    private var connected = false
    /// The requests read and not yet answered (nor cancelled).
    private let unanswered = UnansweredRequests()

    init(input: Int32, output: Int32) {
        (self.input, self.output) = (input, output)
        (messages, continuation) = AsyncThrowingStream.makeStream()
    }

    func connect() async throws {
        guard !connected else { return }
        connected = true
        let (input, continuation, unanswered) = (self.input, self.continuation, self.unanswered)
        let reader = Thread {
            Self.readLines(input) { message in
                unanswered.track(message, received: true)
                continuation.yield(message)
            }
            continuation.finish()
        }
        reader.name = "rewind mcp: reading"
        reader.start()
    }

    func disconnect() async {
        connected = false
        continuation.finish()
    }

    func send(_ data: Data) async throws {
        unanswered.track(data, received: false)
        var message = data
        message.append(UInt8(ascii: "\n"))
        try message.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(output, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    // The client is gone: nothing it asked can be answered any more.
                    unanswered.forgetAll()
                    throw MCPError.connectionClosed
                }
                offset += written
            }
        }
    }

    func receive() -> AsyncThrowingStream<Data, any Error> {
        messages
    }

    /// Returns once every request read has been answered or cancelled.
    func drained() async {
        while !unanswered.isEmpty {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Reads lines until end of input, handing over each non-empty one of at most
    /// ``maxMessageBytes``.
    private static func readLines(_ input: Int32, _ yield: (Data) -> Void) {
        var line = Data()
        var dropping = false
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            var start = 0
            for index in 0..<count where buffer[index] == UInt8(ascii: "\n") {
                if !dropping { line.append(contentsOf: buffer[start..<index]) }
                if !dropping, !line.isEmpty { yield(line) }
                line = Data()
                dropping = false
                start = index + 1
            }
            guard !dropping else { continue }
            line.append(contentsOf: buffer[start..<count])
            if line.count > maxMessageBytes {
                FileHandle.standardError.write(Data("rewind mcp: a message longer than \(maxMessageBytes) bytes was dropped\n".utf8))
                line = Data()
                dropping = true
            }
        }
    }
}

/// The ids of the requests a transport read and has not answered yet.
final class UnansweredRequests: Sendable {
    private let ids = Mutex<Set<String>>([])

    var isEmpty: Bool { ids.withLock(\.isEmpty) }

    func forgetAll() { ids.withLock { $0.removeAll() } }

    /// Notes the requests in `message` (one, or a batch) as unanswered when received, and the
    /// responses in it as answered when sent; a cancellation notification answers its request.
    func track(_ message: Data, received: Bool) {
        guard let object = try? JSONSerialization.jsonObject(with: message) else { return }
        let items = (object as? [Any]) ?? [object]
        ids.withLock { ids in
            for case let item as [String: Any] in items {
                let method = item["method"] as? String
                if let id = item["id"].flatMap(Self.key) {
                    if received, method != nil { ids.insert(id) } else if !received, method == nil { ids.remove(id) }
                } else if received, method == "notifications/cancelled",
                    let id = ((item["params"] as? [String: Any])?["requestId"]).flatMap(Self.key) {
                    ids.remove(id)
                }
            }
        }
    }

    /// A JSON-RPC id as one string: numbers and strings never collide.
    private static func key(_ id: Any) -> String? {
        switch id {
        case let text as String: "s" + text
        case let number as NSNumber: "n" + number.stringValue
        default: nil
        }
    }
}
#endif
