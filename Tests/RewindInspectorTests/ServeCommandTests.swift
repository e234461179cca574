import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Rewind
import RewindLog
import RewindTestSupport
import Testing

/// `rewind serve` as a user runs it: the built binary, a real socket, a real HTTP client.
@Suite("rewind serve")
struct ServeCommandTests {
    typealias Server = ServedInspector

    @Test("prints a loopback URL with a fresh token; the page and the API answer over HTTP, only with the token")
    func servesOverHTTP() async throws {
        let folder = try TemporaryDirectory()
        let path = try await demoLog(in: folder)
        let server = try Server([path], in: folder.path)
        #expect(server.url.host == "127.0.0.1")
        #expect(server.token.count == 64)
        let page = try await server.get(server.url.absoluteString, token: nil)
        #expect(page.status == 200)
        #expect(String(decoding: page.body, as: UTF8.self).contains("<script src=\"/inspector.js\" defer></script>"))
        #expect(try await server.get("/", token: nil).status == 403)
        #expect(try await server.get("/api/head", token: nil).status == 403)
        let head = try await server.get("/api/head", token: server.token)
        #expect(head.status == 200)
        // Each response closes its connection (a kept-alive one would stall 40 ms a call on
        // Nagle's algorithm and delayed ACKs).
        #expect(head.connection == "close")
        #expect(String(decoding: head.body, as: UTF8.self) == #"{"seqs":[1,60],"sessions":1}"#)
        let bisect = try await server.get("/api/bisect?invariant=non-negative-total", token: server.token)
        #expect(String(decoding: bisect.body, as: UTF8.self).contains(#""seq":12"#))
        #expect(try await server.get("/api/head", token: server.token, host: "rebound.example:\(server.url.port ?? 0)").status == 421)
        // A second launch has another token.
        let second = try Server([path], in: folder.path)
        #expect(second.token != server.token)
        #expect(try await second.get("/api/head", token: server.token).status == 403)
        // A port in use fails at once, saying so.
        let port = try #require(server.url.port)
        let taken = try await run(builtProduct("rewind"), ["serve", path, "--port", "\(port)"], timeout: 20)
        #expect(taken.status == 2)
        #expect(taken.standardError.contains("cannot listen on 127.0.0.1:\(port)") && taken.standardError.contains("Address already in use"), "\(taken.standardError)")
    }

    @Test("a log it cannot read, a bad port or a bad address fails at once with exit 2 and the CLI's message")
    func badArguments() async throws {
        let folder = try TemporaryDirectory()
        try Data("text".utf8).write(to: URL(fileURLWithPath: folder.file("notes.txt")))
        let rewind = builtProduct("rewind")
        let cases: [([String], String)] = await [
            (["serve", "notes.txt"], "not a Rewind log"),
            (["serve", "missing.rewind"], "no such file"),
            (["serve", try demoLog(in: folder), "--port", "70000"], "--port 70000: give a port from 0 to 65535"),
            (["serve", "demo.rewind", "--port=-1"], "--port -1: give a port from 0 to 65535"),
            (["serve", "demo.rewind", "--host", "300.1.1.1"], "cannot listen on 300.1.1.1:0: '300.1.1.1' is not an IPv4 or IPv6 address, nor localhost"),
            (["serve", "demo.rewind", "--host", "example.com"], "'example.com' is not an IPv4 or IPv6 address"),
            (["serve", "demo.rewind", "--key-file", "none.keys"], "--key-file none.keys: no such file"),
        ]
        for (arguments, message) in cases {
            let result = try await run(rewind, arguments, in: folder.path, timeout: 60)
            #expect(result.status == 2, "\(arguments): \(result.standardOutput)")
            #expect(result.standardError.contains(message), "\(arguments): \(result.standardError)")
        }
    }

    @Test("an app's own replay tool has the same subcommand")
    func appToolServes() async throws {
        let help = try await run(builtProduct("rewind-todo"), ["serve", "--help"])
        #expect(help.status == 0)
        #expect(help.standardOutput.contains("Open a log in the time-travel inspector"))
    }

    @Test("--open hands the printed URL, token included, to $BROWSER; with no browser at all it says so and serves on")
    func opensABrowser() async throws {
        let folder = try TemporaryDirectory()
        let path = try await demoLog(in: folder)
        // A "browser" that writes down what it was asked to open.
        let browser = folder.file("browser.sh")
        try "#!/bin/sh\nprintf '%s' \"$1\" > \"\(folder.file("opened"))\"\n".write(toFile: browser, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: browser)
        let server = try Server([path, "--open"], in: folder.path, environment: ["BROWSER": browser])
        let opened = folder.file("opened")
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: opened), Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(try String(contentsOfFile: opened, encoding: .utf8) == server.url.absoluteString)
        #expect(try await server.get("/api/head", token: server.token).status == 200)

        // No BROWSER, no display, nothing on PATH: a sentence on standard error, and the page
        // is still served at the URL printed.
        let headless = try Server([path, "--open"], in: folder.path, environment: ["BROWSER": "", "DISPLAY": "", "WAYLAND_DISPLAY": "", "PATH": folder.path])
        #expect(try await headless.get("/api/head", token: headless.token).status == 200)
        headless.process.terminate()
        headless.process.waitUntilExit()
        let said = String(decoding: headless.standardError.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(said.contains("--open: no browser to open here"), "\(said)")
    }

    @Test("another address than loopback needs --host and prints a warning")
    func nonLoopbackWarns() async throws {
        let folder = try TemporaryDirectory()
        let path = try await demoLog(in: folder)
        let server = try Server([path, "--host", "0.0.0.0"], in: folder.path)
        server.process.terminate()
        server.process.waitUntilExit()
        let warning = String(decoding: server.standardError.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(warning.contains("warning: listening on 0.0.0.0, not on loopback"))
        #expect(server.url.host == "0.0.0.0")
    }

    @Test("a log of an older schema: served through one migrated copy that is never left in TMPDIR, whether serve ends by SIGINT, SIGTERM or SIGKILL")
    func olderSchema() async throws {
        let folder = try TemporaryDirectory()
        let path = try olderLog(in: folder)
        let temporary = folder.file("tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        let copies = { try FileManager.default.contentsOfDirectory(atPath: temporary).filter { $0.hasPrefix("rewind-upgraded-") } }
        for signal in [SIGINT, SIGTERM, SIGKILL] {
            let server = try Server([path], in: folder.path, environment: ["TMPDIR": temporary])
            for _ in 0..<5 {
                let head = try await server.get("/api/head", token: server.token)
                #expect(String(decoding: head.body, as: UTF8.self) == #"{"seqs":[1,9],"sessions":2}"#)
            }
            let events = try await server.get("/api/events?after=0", token: server.token)
            #expect(events.status == 200)
            // Copied once, and unlinked at once: read on through its open descriptor.
            #expect(try copies() == [], "signal \(signal)")
            kill(server.process.processIdentifier, signal)
            server.process.waitUntilExit()
            #expect(server.process.terminationReason == .uncaughtSignal && server.process.terminationStatus == signal)
            #expect(try copies() == [], "signal \(signal)")
        }
    }

}

/// A log of schema 1 with two sessions and nine events, as the first Rewind wrote it.
func olderLog(in folder: TemporaryDirectory) throws -> String {
    let path = folder.file("old.rewind")
    let log = try EventLog(path: path)
    let first = try log.beginSession(app: AppIdentity(id: "first"), initialState: 0)
    let second = try log.beginSession(app: AppIdentity(id: "second"), initialState: 0)
    for round in 0..<3 {
        try log.append([EventRecord(round, source: ActionSource())], to: first)
        try log.append([EventRecord(round, source: ActionSource()), EventRecord(-round, source: ActionSource())], to: second)
    }
    try log.close()
    try downgradeToSchemaOne(path)
    return path
}
