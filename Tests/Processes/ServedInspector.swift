public import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A running `rewind serve` (the built binary), stopped when released: for tests that talk to
/// the inspector over a real socket, as a browser does.
// `@unchecked Sendable`: every stored property is a constant, and `Process` and `Pipe` are
// safe to use from any thread once started (a soak polls one while another thread restarts it).
public final class ServedInspector: @unchecked Sendable {
    public let process = Process()
    /// The URL it printed, with its token.
    public let url: URL
    /// What it writes to standard error (warnings), readable once it has stopped.
    public let standardError = Pipe()

    /// Starts `rewind serve --json ARGUMENTS` in `folder` (with `environment` added to this
    /// process's) and waits until it listens.
    public init(_ arguments: [String], in folder: String, environment: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: builtProduct("rewind"))
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, given in given }
        }
        process.arguments = ["serve", "--json"] + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = standardError
        try process.run()
        // The first line, {"url": …}, is written once the server listens.
        let line = firstLine(of: output)
        let object = try JSONSerialization.jsonObject(with: line) as? [String: String]
        guard let url = object?["url"].flatMap(URL.init(string:)) else {
            process.terminate()
            throw ServeFailed(description: "rewind serve printed no URL: \(String(decoding: line, as: UTF8.self))")
        }
        self.url = url
    }

    deinit {
        process.terminate()
        process.waitUntilExit()
    }

    /// The token in its URL.
    public var token: String { URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "token" }?.value ?? "" }

    /// `GET path` (relative to its URL), with `token` (none: `nil`) and another `Host` header
    /// when given. A call answered `202` (a job) is asked about, as the page does, until its
    /// answer is there, unless `followingJobs` is false.
    public func get(_ path: String, token: String?, host: String? = nil, followingJobs: Bool = true) async throws -> (status: Int, body: Data, connection: String?) {
        var request = URLRequest(url: URL(string: path, relativeTo: url)!)
        if let token { request.setValue(token, forHTTPHeaderField: "X-Rewind-Token") }
        if let host { request.setValue(host, forHTTPHeaderField: "Host") }
        var (data, response) = try await URLSession.shared.data(for: request)
        while followingJobs, (response as? HTTPURLResponse)?.statusCode == 202,
            let job = (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["job"] as? String {
            request.url = URL(string: "/api/job?id=\(job)", relativeTo: url)!
            (data, response) = try await URLSession.shared.data(for: request)
        }
        let http = response as? HTTPURLResponse
        return (http?.statusCode ?? 0, data, http?.value(forHTTPHeaderField: "Connection"))
    }

    struct ServeFailed: Error, CustomStringConvertible {
        var description: String
    }
}
