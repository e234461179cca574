import Foundation
import RewindTestSupport
import Testing

/// What the built `rewind` prints besides answers: JSON reports, colours, completion scripts.
@Suite("rewind output formats")
struct OutputFormatTests {
    /// Runs `rewind` under a pseudo-terminal (util-linux `script`), as a person at a terminal
    /// would; the terminal's output comes back on standard output.
    static func rewindOnTerminal(_ arguments: [String], in folder: TemporaryDirectory, environment: [String: String] = [:]) async throws -> ProcessOutput {
        let command = ([builtProduct("rewind")] + arguments).map { "'\($0)'" }.joined(separator: " ")
        return try await run("/usr/bin/script", ["-qec", command, "/dev/null"], in: folder.path, environment: environment)
    }

    static let escape = "\u{1B}["

    @Test(
        "diffs are coloured on a terminal, plain when piped, with NO_COLOR, or as JSON",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs util-linux's script for a pseudo-terminal")
    )
    func colours() async throws {
        let (folder, path, bugSeq) = try await RewindCommandTests.demoLog()
        let arguments = ["diff", path, "--at", "\(bugSeq)"]

        // NO_COLOR emptied: the runner may set it for its own output.
        let terminal = try await Self.rewindOnTerminal(arguments, in: folder, environment: ["NO_COLOR": ""])
        #expect(terminal.status == 0, "\(terminal.standardOutput)")
        #expect(terminal.standardOutput.contains(Self.escape + "31m-"), "a removed line is red on a terminal")
        #expect(terminal.standardOutput.contains(Self.escape + "32m+"), "an added line is green on a terminal")

        let noColour = try await Self.rewindOnTerminal(arguments, in: folder, environment: ["NO_COLOR": "1"])
        #expect(noColour.status == 0)
        #expect(noColour.standardOutput.contains("+     total: -"))
        #expect(!noColour.standardOutput.contains(Self.escape), "NO_COLOR turns colours off")

        let piped = try await run(builtProduct("rewind"), arguments, in: folder.path)
        #expect(piped.standardOutput.contains("+     total: -"))
        #expect(!piped.standardOutput.contains(Self.escape), "piped output is plain")

        let json = try await Self.rewindOnTerminal(arguments + ["--json"], in: folder)
        #expect(!json.standardOutput.contains(Self.escape), "JSON is never coloured")
    }

    @Test("every subcommand's --json prints one JSON document with its report's fields", arguments: [
        (["sessions", "LOG"], ["id", "app", "events", "firstSeq", "lastSeq", "actionFingerprint", "stateFingerprint"]),
        (["schema", "LOG", "--diff"], ["groups", "drifted"]),
        (["stats", "LOG"], ["events", "sessions", "actionCases", "sources", "from", "to"]),
        (["check", "LOG"], ["sound", "sqlite", "events", "gaps"]),
        (["show", "LOG", "--at", "BUG"], ["seq", "action", "file", "line", "payload"]),
        (["state", "LOG", "--at", "BUG"], ["seq", "session", "state", "eventsFolded", "fromSnapshot", "skipped"]),
        (["diff", "LOG", "--at", "BUG"], ["seq", "event", "diff"]),
        (["diff", "LOG", "--from", "3", "--to", "BUG"], ["from", "to", "diff"]),
        (["bisect", "LOG", "--invariant", "non-negative-total"], ["found", "condition", "seq", "event", "diff", "eventsFolded"]),
        (["verify", "LOG"], ["agrees", "sessions", "eventsFolded", "snapshotsCompared"]),
        (["replay", "LOG", "--without", "BUG"], ["at", "without", "state", "through", "skipped"]),
        (["export", "LOG", "--output", "export.jsonl"], ["events", "output"]),
        (["apps"], ["id", "invariants"]),
    ])
    func jsonReports(arguments: [String], keys: [String]) async throws {
        let (folder, path, bugSeq) = try await RewindCommandTests.demoLog()
        let resolved = arguments.map { $0 == "LOG" ? path : $0 == "BUG" ? "\(bugSeq)" : $0 } + ["--json"]
        let result = try await run(builtProduct("rewind"), resolved, in: folder.path)
        #expect(result.status == 0, "\(resolved): \(result.standardError)")
        let document = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8))
        // Lists (sessions, apps) are arrays of objects; everything else one object.
        let object = try #require((document as? [[String: Any]])?.first ?? document as? [String: Any], "\(result.standardOutput)")
        for key in keys { #expect(object[key] != nil, "\(arguments[0]) --json lacks '\(key)'") }
    }

    @Test("import --json names the log created and its seqs")
    func importReport() async throws {
        let (folder, path, _) = try await RewindCommandTests.demoLog()
        _ = try await run(builtProduct("rewind"), ["export", path, "--output", "export.jsonl"], in: folder.path)
        let result = try await run(builtProduct("rewind"), ["import", "export.jsonl", "--output", "imported.rewind", "--json"], in: folder.path)
        #expect(result.status == 0, "\(result.standardError)")
        let object = try RewindCommandTests.json(result.standardOutput)
        #expect(object["output"] as? String == "imported.rewind")
        #expect((object["firstSeq"] as? NSNumber)?.int64Value == 1)
        #expect((object["lastSeq"] as? NSNumber)?.int64Value ?? 0 > 1)
    }

    @Test("shell completion scripts name every subcommand", arguments: ["bash", "zsh", "fish"])
    func completionScripts(shell: String) async throws {
        let result = try await run(builtProduct("rewind"), ["--generate-completion-script", shell])
        #expect(result.status == 0, "\(result.standardError)")
        for subcommand in ["sessions", "schema", "log", "show", "state", "diff", "bisect", "shrink", "verify", "replay", "export", "import", "demo"] {
            #expect(result.standardOutput.contains(subcommand), "\(shell) script lacks \(subcommand)")
        }
    }
}
