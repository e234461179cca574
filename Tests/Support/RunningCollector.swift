public import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import RewindTestProcesses
public import Testing

/// A running `rewind collect` (the built binary, with the Collector trait), stopped with SIGTERM
/// when released: the tests talk to it over a real socket, as devices do.
public final class RunningCollector: @unchecked Sendable {
    // `@unchecked Sendable`: constants only; Process and Pipe are safe from any thread once started.
    public let process = Process()
    public let url: URL
    public let standardError = Pipe()

    /// Starts `rewind collect --store STORE --tokens TOKENS --listen 127.0.0.1:PORT EXTRA…` and
    /// waits until it listens.
    ///
    /// - Parameter fileSizeLimit: The most KiB any file it writes may reach (`ulimit -f`, with
    ///   SIGXFSZ ignored): past it a write fails as on a full disk.
    public init(store: String, tokens: String, port: Int = 0, extra: [String] = [], fileSizeLimit: Int? = nil) throws {
        let arguments = ["collect", "--store", store, "--tokens", tokens, "--listen", "127.0.0.1:\(port)"] + extra
        if let fileSizeLimit {
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-c", "trap '' XFSZ; ulimit -f \(fileSizeLimit); exec \"$0\" \"$@\"", builtProduct("rewind")] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: builtProduct("rewind"))
            process.arguments = arguments
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = standardError
        try process.run()
        let line = firstLine(of: output)
        let text = String(decoding: line, as: UTF8.self)
        guard let range = text.range(of: "listening on "), let url = URL(string: text[range.upperBound...].trimmingCharacters(in: .whitespacesAndNewlines)) else {
            process.terminate()
            process.waitUntilExit()
            let errors = String(decoding: standardError.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw CollectorFailed(description: "rewind collect printed no address: \(text) \(errors)")
        }
        self.url = url
    }

    deinit { stop() }

    public var port: Int { url.port ?? 0 }

    /// SIGTERM, then waits for it to end (its graceful shutdown), which must be an exit with
    /// status 0: a trap on the way out (a store's connection left open, say) or any other end is
    /// recorded as an issue of the test, with the end of what it wrote to standard error.
    public func stop(sourceLocation: SourceLocation = #_sourceLocation) {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
        guard process.terminationReason != .exit || process.terminationStatus != 0 else { return }
        let how = process.terminationReason == .exit ? "with status" : "by signal"
        let errors = String(decoding: standardError.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        Issue.record("rewind collect ended \(how) \(process.terminationStatus) after SIGTERM, not with 0:\n\(errors.suffix(3_000))", sourceLocation: sourceLocation)
    }

    /// SIGKILL: the server dies mid-whatever.
    public func kill() {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// One request; the status and body.
    public func request(_ method: String, _ path: String, token: String?, headers: [String: String] = [:], body: Data? = nil) async throws -> (status: Int, body: Data) {
        // A query stays a query: `appendingPathComponent` would escape its `?`.
        let parts = path.split(separator: "?", maxSplits: 1).map(String.init)
        var components = URLComponents(url: url.appendingPathComponent(parts[0]), resolvingAgainstBaseURL: false)!
        if parts.count == 2 { components.percentEncodedQuery = parts[1] }
        var request = URLRequest(url: components.url!)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response): (Data, URLResponse)
        if let body {
            (data, response) = try await URLSession.shared.upload(for: request, from: body)
        } else {
            (data, response) = try await URLSession.shared.data(for: request)
        }
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }
}

public struct CollectorFailed: Error, CustomStringConvertible {
    public var description: String
}
