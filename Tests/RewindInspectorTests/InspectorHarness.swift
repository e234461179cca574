import Foundation
@testable import RewindCLI
@testable import RewindInspector
import RewindTestSupport
import Testing
@testable import rewind

/// An inspector over one log, driven without a socket: requests go straight to
/// `Inspector.respond(to:)`, through the host and token checks, to the same API `rewind serve`
/// answers with.
struct InspectorHarness {
    static let token = "test-token-0123456789"
    static let host = "127.0.0.1:8765"
    let inspector: Inspector

    /// The apps the `rewind` tool registers (the shop and the todo app), registered once: a
    /// static is initialised once whatever the number of tests running in parallel, so the
    /// registry is written before any of them reads it, and never while one does.
    private static let registered: Void = AppRegistry.register(apps: ExampleApps.all, extraCommands: [])

    init(path: String, keyFile: String? = nil) {
        // Jobs kept a minute without a poll: on a loaded machine the test's next poll may come
        // late, and these tests are not about abandonment (InspectorJobTests is).
        var limits = Inspector.Limits()
        limits.abandonAfter = .seconds(60)
        inspector = Self.inspector(path: path, keyFile: keyFile, host: Self.host, token: Self.token, limits: limits)
    }

    /// An inspector over the log at `path`, as `rewind serve` makes it, with `limits`.
    static func inspector(path: String, keyFile: String? = nil, host: String, token: String, limits: Inspector.Limits) -> Inspector {
        registered
        return Inspector(
            api: LogInspection(path: path, name: path, keyFile: keyFile, skipUndecodable: false), title: (path as NSString).lastPathComponent,
            token: token, hosts: [host], limits: limits
        )
    }

    /// The job table of `inspector`, to watch its work.
    static func jobs(of inspector: Inspector) -> InspectorJobs { inspector.jobs }

    /// The response to `GET target` (with the token and the right host unless told otherwise).
    func get(_ target: String, token: String? = InspectorHarness.token, host: String? = InspectorHarness.host, method: String = "GET") async -> InspectorResponse {
        var headers: [String: String] = [:]
        if let token { headers["X-Rewind-Token"] = token }
        if let host { headers["Host"] = host }
        var response = await inspector.respond(to: InspectorRequest(method: method, target: target, headers: headers))
        // A call that ran long is a job: asked about, as the page does, until its answer is there.
        while response.status == 202, let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any], let job = object["job"] as? String {
            response = await inspector.respond(to: InspectorRequest(method: method, target: "/api/job?id=\(job)", headers: headers))
        }
        return response
    }

    /// An API call's JSON object, requiring `status`.
    func json(_ target: String, status: Int = 200, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String: Any] {
        let response = await get(target)
        let text = String(decoding: response.body, as: UTF8.self)
        #expect(response.status == status, "\(target): \(text)", sourceLocation: sourceLocation)
        #expect(response.header("Content-Type") == "application/json; charset=utf-8", sourceLocation: sourceLocation)
        return try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any], "\(target): \(text)", sourceLocation: sourceLocation)
    }

    /// The `error` of a call that must fail with `status`.
    func error(_ target: String, status: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let object = try await json(target, status: status, sourceLocation: sourceLocation)
        return try #require(object["error"] as? String, sourceLocation: sourceLocation)
    }

    /// A page of the timeline: its seqs, and whether there is more.
    /// Every seq `query` lists, read page by page, `limit` a page: forward from the start, or
    /// backward from the end; each page at most `limit` long.
    func allPages(_ query: String, limit: Int, backward: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [Int64] {
        var seqs: [Int64] = [], from: Int64 = backward ? .max : 0
        while true {
            let place = "\(backward ? "before" : "after")=\(from)&limit=\(limit)"
            let page = try await self.page(query.isEmpty ? place : query + "&" + place, sourceLocation: sourceLocation)
            #expect(page.seqs.count <= limit, sourceLocation: sourceLocation)
            seqs = backward ? page.seqs + seqs : seqs + page.seqs
            guard page.more, let next = backward ? page.seqs.first : page.seqs.last else { return seqs }
            from = next
        }
    }

    func page(_ query: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> (seqs: [Int64], more: Bool) {
        let object = try await json("/api/events?" + query, sourceLocation: sourceLocation)
        let events = try #require(object["events"] as? [[String: Any]], sourceLocation: sourceLocation)
        return (events.compactMap { ($0["seq"] as? NSNumber)?.int64Value }, try #require(object["more"] as? Bool, sourceLocation: sourceLocation))
    }
}

/// The demo's log (`rewind demo`, seed 7: the total goes negative at seq 12), recorded by the
/// built tool as a user records it.
func demoLog(actions: Int = 60, in folder: TemporaryDirectory, arguments: [String] = []) async throws -> String {
    let result = try await run(builtProduct("rewind"), ["demo", "--quiet", "--actions", "\(actions)", "--output", "demo.rewind"] + arguments, in: folder.path)
    #expect(result.status == 0, "\(result.standardError)")
    return folder.file("demo.rewind")
}
