import Foundation
import RewindInspector
import RewindTestSupport
import Testing

@Suite("Inspector: host, token and method checks")
struct InspectorSecurityTests {
    @Test("the page needs the launch's token in its URL; its files need none (they hold no data)")
    func pageNeedsToken() async throws {
        let folder = try TemporaryDirectory()
        let inspector = await InspectorHarness(path: try demoLog(in: folder))
        let page = await inspector.get("/?token=\(InspectorHarness.token)", token: nil)
        #expect(page.status == 200)
        #expect(page.header("Content-Type") == "text/html; charset=utf-8")
        #expect(String(decoding: page.body, as: UTF8.self).contains("<title>demo.rewind — Rewind</title>"))
        for target in ["/", "/?token=", "/?token=wrong", "/?token=\(InspectorHarness.token)x", "/?token=\(InspectorHarness.token.dropLast())"] {
            #expect(await inspector.get(target, token: nil).status == 403, "\(target)")
        }
        // The page's files are served byte for byte as they are in the sources, where a web
        // developer edits them; the document with its title filled in, escaped.
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/RewindInspector/Page")
        for (target, file) in [("/inspector.js", "inspector.js"), ("/inspector.css", "inspector.css")] {
            let served = await inspector.get(target, token: nil)
            #expect(served.status == 200)
            #expect(served.body.count > 1_000)
            #expect(served.body == (try Data(contentsOf: sources.appendingPathComponent(file))), "\(target)")
        }
        let document = try String(contentsOf: sources.appendingPathComponent("inspector.html"), encoding: .utf8)
        #expect(String(decoding: page.body, as: UTF8.self) == document.replacingOccurrences(of: "{{title}}", with: "demo.rewind").replacingOccurrences(of: "{{view}}", with: "log"))
        let hostile = InspectorHarness(path: folder.file("<b>&\"x\".rewind"))
        let escaped = String(decoding: await hostile.get("/?token=\(InspectorHarness.token)", token: nil).body, as: UTF8.self)
        #expect(escaped.contains("<title>&lt;b&gt;&amp;&quot;x&quot;.rewind — Rewind</title>") && !escaped.contains("<b>&"))
    }

    @Test("every API call needs the token header; a wrong, short or missing one is refused before the log is read")
    func apiNeedsToken() async throws {
        // No log at this path: a call that got through would answer 422, not 403.
        let inspector = InspectorHarness(path: "/nonexistent/log.rewind")
        for token in [nil, "", "wrong", InspectorHarness.token.uppercased(), InspectorHarness.token + " "] as [String?] {
            let response = await inspector.get("/api/head", token: token)
            #expect(response.status == 403, "\(String(describing: token))")
            #expect(String(decoding: response.body, as: UTF8.self).contains("X-Rewind-Token"))
        }
        #expect(await inspector.get("/api/head").status == 422)
    }

    @Test("a Host the server did not print is refused (DNS rebinding), for the page, its files and the API")
    func hostChecked() async throws {
        let inspector = InspectorHarness(path: "/nonexistent/log.rewind")
        for host in [nil, "", "evil.example:8765", "127.0.0.1", "127.0.0.1:80", "127.0.0.1:8766", "127.0.0.1.evil.example:8765", "localhost:8765"] as [String?] {
            for target in ["/?token=\(InspectorHarness.token)", "/inspector.js", "/api/head"] {
                #expect(await inspector.get(target, host: host).status == 421, "\(String(describing: host)) \(target)")
            }
        }
    }

    @Test("a served inspector accepts every spelling of loopback on its port, and only its port")
    func loopbackSpellings() async throws {
        let inspector = Inspector(api: EchoAPI(), title: "t", token: "t0k")
        try await withThrowingTaskGroup(of: Void.self) { group in
            let (urls, continuation) = AsyncStream<URL>.makeStream()
            group.addTask { try await inspector.serve(port: 0) { continuation.yield($0) } }
            var iterator = urls.makeAsyncIterator()
            let url = try #require(await iterator.next())
            let port = try #require(url.port)
            #expect(url.absoluteString == "http://127.0.0.1:\(port)/?token=t0k")
            for host in ["127.0.0.1:\(port)", "localhost:\(port)", "LOCALHOST:\(port)", "[::1]:\(port)"] {
                let response = await inspector.respond(to: InspectorRequest(target: "/api/x", headers: ["Host": host, "X-Rewind-Token": "t0k"]))
                #expect(response.status == 200, "\(host)")
            }
            for host in ["127.0.0.1:\(port + 1)", "example.com:\(port)"] {
                #expect(await inspector.respond(to: InspectorRequest(target: "/api/x", headers: ["Host": host, "X-Rewind-Token": "t0k"])).status == 421)
            }
            group.cancelAll()
        }
    }

    @Test("listening on every address, any IP literal on its port is a good Host (the LAN address); names are still refused")
    func wildcardAddress() async throws {
        let inspector = Inspector(api: EchoAPI(), title: "t", token: "t0k")
        try await withThrowingTaskGroup(of: Void.self) { group in
            let (urls, continuation) = AsyncStream<URL>.makeStream()
            group.addTask { try await inspector.serve(host: "0.0.0.0", port: 0) { continuation.yield($0) } }
            var iterator = urls.makeAsyncIterator()
            let port = try #require(await iterator.next()?.port)
            let status = { (host: String) in
                await inspector.respond(to: InspectorRequest(target: "/api/x", headers: ["Host": host, "X-Rewind-Token": "t0k"])).status
            }
            for host in ["192.168.1.5:\(port)", "10.0.0.1:\(port)", "0.0.0.0:\(port)", "127.0.0.1:\(port)", "localhost:\(port)", "[fe80::1]:\(port)"] {
                #expect(await status(host) == 200, "\(host)")
            }
            for host in ["evil.example:\(port)", "192.168.1.5:\(port + 1)", "192.168.1.5", "1.2.3.4.5:\(port)", "256.1.1.1:\(port)",
                         "1.2.3:\(port)", "[evil.example]:\(port)", "[fe80::1]:\(port + 1)", "1.2.3.4 :\(port)"] {
                #expect(await status(host) == 421, "\(host)")
            }
            group.cancelAll()
        }
    }

    @Test("only GET and HEAD are served: the inspector never changes anything")
    func readOnlyMethods() async throws {
        let inspector = InspectorHarness(path: "/nonexistent/log.rewind")
        for method in ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"] {
            #expect(await inspector.get("/api/head", method: method).status == 405, "\(method)")
        }
    }

    @Test("every response forbids framing, sniffing, referrers and scripts from elsewhere; API answers are not cached")
    func securityHeaders() async throws {
        let inspector = InspectorHarness(path: "/nonexistent/log.rewind")
        for target in ["/?token=\(InspectorHarness.token)", "/inspector.js", "/api/head", "/nothing"] {
            let response = await inspector.get(target)
            #expect(response.header("X-Frame-Options") == "DENY", "\(target)")
            #expect(response.header("X-Content-Type-Options") == "nosniff")
            #expect(response.header("Referrer-Policy") == "no-referrer")
            #expect(response.header("Content-Security-Policy")?.contains("script-src 'self'") == true)
        }
        #expect(await inspector.get("/api/head").header("Cache-Control") == "no-store")
        #expect(await inspector.get("/nothing").status == 404)
    }

    @Test("the page's title is the log's file name, escaped: a hostile name is text, not markup")
    func titleEscaped() async throws {
        let inspector = Inspector(api: EchoAPI(), title: #"<script>alert("x")</script>&.rewind"#, token: "t", hosts: ["h:1"])
        let page = await inspector.respond(to: InspectorRequest(target: "/?token=t", headers: ["Host": "h:1"]))
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(!html.contains("<script>alert"))
        #expect(html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;.rewind"))
    }

    @Test("tokens are 64 hex digits and differ per launch")
    func tokens() {
        let tokens = (0..<100).map { _ in Inspector.makeToken() }
        #expect(Set(tokens).count == 100)
        #expect(tokens.allSatisfy { $0.count == 64 && $0.allSatisfy(\.isHexDigit) })
    }
}

/// Answers every call with its endpoint, for checks that need no log.
private struct EchoAPI: InspectorAPI {
    func answer(_ call: InspectorCall, in job: InspectorJob) async -> InspectorResponse {
        .json(Data(#"{"endpoint":"\#(call.endpoint)"}"#.utf8))
    }
}
