import Foundation
import RewindTestSupport
import Testing

/// `rewind mcp` over its raw protocol, as the built binary: JSON-RPC alone on standard output
/// whatever comes in, a message over the size limit dropped without ending the server, the
/// answers to what was asked before the client closed its end, and launch errors on standard
/// error. (Tools/mcp-tests.sh drives it with the reference MCP client.)
@Suite("rewind mcp")
struct MCPCommandTests {
    /// Runs `rewind mcp ARGUMENTS` with `lines` on its standard input, then end of input.
    static func mcp(_ arguments: [String], input lines: [String], in folder: TemporaryDirectory) async throws -> ProcessOutput {
        let requests = folder.file("requests-\(UUID().uuidString).jsonl")
        try Data((lines.map { $0 + "\n" }.joined()).utf8).write(to: URL(fileURLWithPath: requests))
        return try await run("/bin/sh", ["-c", "exec \"$0\" mcp \"$@\" < \"$REQUESTS\"", builtProduct("rewind")] + arguments,
                             in: folder.path, environment: ["REQUESTS": requests], timeout: 120)
    }

    static func request(_ id: Int, _ method: String, _ params: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: ["jsonrpc": "2.0", "id": id, "method": method, "params": params]), as: UTF8.self)
    }

    static let initialize = #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#

    @Test("standard output carries JSON-RPC alone; garbage and an oversized message are survived; what was asked is answered after input ends")
    func protocolOnly() async throws {
        let (folder, path, _) = try await RewindCommandTests.demoLog()
        let output = try await Self.mcp([path], input: [
            Self.initialize,
            #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            "this is not JSON",
            String(repeating: "x", count: 5 << 20),
            try Self.request(2, "tools/list", [:]),
            try Self.request(3, "tools/call", ["name": "why", "arguments": ["at": 9]]),
            try Self.request(4, "tools/call", ["name": "state", "arguments": ["at": 12, "nonsense": 1]]),
            try Self.request(5, "tools/call", ["name": "verify", "arguments": [:]]),
        ], in: folder)
        #expect(output.status == 0, "\(output.standardError)")
        var answers: [Int: [String: Any]] = [:]
        for line in output.standardOutput.split(separator: "\n") {
            let message = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not JSON: \(line.prefix(200))")
            #expect(message["jsonrpc"] as? String == "2.0")
            if let id = message["id"] as? Int { answers[id] = message }
        }
        #expect(Set(answers.keys) == [1, 2, 3, 4, 5], "\(output.standardOutput.prefix(2_000))")
        #expect(output.standardError.contains("a message longer than 4194304 bytes was dropped"))
        #expect(((answers[2]?["result"] as? [String: Any])?["tools"] as? [Any])?.count == 11)

        func text(_ id: Int) -> (text: String, isError: Bool) {
            let result = answers[id]?["result"] as? [String: Any]
            return (((result?["content"] as? [[String: Any]])?.first?["text"] as? String) ?? "", result?["isError"] as? Bool ?? false)
        }
        let why = try await RewindCommandTests.rewind("why", path, "--at", "9", "--json", in: folder)
        let fromCLI = try JSONSerialization.jsonObject(with: Data(why.standardOutput.utf8)) as? NSDictionary
        let fromMCP = try JSONSerialization.jsonObject(with: Data(text(3).text.utf8)) as? NSDictionary
        #expect(fromCLI != nil && fromCLI == fromMCP, "why answers as the CLI's --json")
        #expect(text(4).isError && text(4).text.contains("'state' has no argument 'nonsense'"))
        #expect(!text(5).isError && text(5).text.contains(#""agrees":true"#))
    }

    @Test("launch errors go to standard error with the CLI's exit codes, and nothing to standard output")
    func launchErrors() async throws {
        let (folder, path, _) = try await RewindCommandTests.demoLog()
        for (arguments, needle) in [
            ([String](), "name at least one log"),
            (["missing.rewind"], "missing.rewind"),
            ([path, "--max-answer-bytes", "10"], "--max-answer-bytes is 1024 to 67108864"),
            ([path, path], "is named twice"),
            ([path, "--key-file", "no-such.keys"], "no-such.keys"),
        ] {
            let output = try await Self.mcp(arguments, input: [Self.initialize], in: folder)
            #expect(output.status == 2 && output.standardError.contains(needle), "\(arguments): \(output.standardError)")
            #expect(output.standardOutput.isEmpty, "\(arguments) printed to standard output: \(output.standardOutput)")
        }
        // A file that is no log.
        let text = folder.file("notes.txt")
        try Data("hello".utf8).write(to: URL(fileURLWithPath: text))
        let output = try await Self.mcp([text], input: [Self.initialize], in: folder)
        #expect(output.status != 0 && output.standardOutput.isEmpty && output.standardError.contains("notes.txt"), "\(output.standardError)")
    }
}
