import Foundation
import Rewind
import RewindLog
@testable import RewindPostgres
import RewindTestSupport
import Testing

/// `rewind pull`, as the built binary: a pushed log comes back as a file every command reads as
/// the device's own.
@Suite("rewind pull", .enabled(if: PostgresTestServer.enabled))
struct PullCommandTests {
    @Test("a pull of a log much larger than its pages holds a page or two in memory, never the log")
    func pullMemoryIsBounded() async throws {
        let folder = try TemporaryDirectory()
        // 160 MiB of payloads, and four states of 4 MiB after the initial one.
        let uploads = 160
        let log = try PushCommandTests.uploadsLog(at: folder.file("uploads.rewind"), uploads: uploads, states: true)
        try await PostgresTestServer.withDatabase { location in
            let (pulled, report) = try await Self.pushThenPull(log, through: location, into: folder)
            #expect(report["events"] as? Int == uploads && report["snapshots"] as? Int == 5, "every event, the initial state and four more")
            let copy = try EventLog(path: folder.file("pulled.rewind"), mode: .readOnly)
            #expect(try copy.seqRange() == 1...Int64(uploads))
            // A page or two of payloads at about 8 MiB each, the export's lines, the import's
            // batches, and the process's own 50–60 MiB.
            let peak = try #require(pulled.peakResidentKilobytes, "Linux's /proc gives a process's peak")
            #expect(peak < 150 * 1024, "the puller held \(peak / 1024) MiB at its peak, for \(uploads) MiB of payloads")
        }
    }

    /// Pushes `log` (then closes it) and pulls it back as `pulled.rewind` in `folder` with the
    /// built `rewind`: its output, and its `--json` report.
    private static func pushThenPull(
        _ log: EventLog, through location: PostgresLocation, into folder: TemporaryDirectory
    ) async throws -> (ProcessOutput, [String: Any]) {
        let identity = try #require(try log.identity()).uuidString.lowercased()
        let store = try await PostgresLog.open(location)
        _ = try await store.push(log)
        await store.close()
        try log.close()
        let pulled = try await run(
            builtProduct("rewind"), ["pull", PushCommandTests.url(location), "--log", identity, "--output", "pulled.rewind", "--json"], in: folder.path
        )
        #expect(pulled.status == 0, "\(pulled.standardError)")
        return (pulled, try #require(try JSONSerialization.jsonObject(with: Data(pulled.standardOutput.utf8)) as? [String: Any]))
    }

    @Test("a pull of many large snapshots holds a page of them, sized by their bytes, never all of them")
    func pullSnapshotMemoryIsBounded() async throws {
        let folder = try TemporaryDirectory()
        // 32 states of 3 MiB that do not compress (base64 of random bytes: about 2.3 MiB each as
        // stored, 74 MiB in all), between a few small events.
        let log = try EventLog(path: folder.file("states.rewind"))
        let session = try log.beginSession(app: AppIdentity(id: "com.example.states"), initialState: "")
        var random = SystemRandomNumberGenerator()
        let noise = (0..<(9 << 15)).map { _ in UInt64.random(in: .min ... .max, using: &random) }.withUnsafeBytes { Data($0) }
        for index in 0..<32 {
            try log.append([EventRecord("event \(index)", source: ActionSource())], to: session)
            // Each its own: the noise turned by the snapshot's number.
            let state = (noise[(index * 4_099)...] + noise[..<(index * 4_099)]).base64EncodedString()
            try log.appendSnapshot(state, to: session, after: try #require(try log.seqRange()).upperBound)
        }
        try await PostgresTestServer.withDatabase { location in
            let (pulled, report) = try await Self.pushThenPull(log, through: location, into: folder)
            #expect(report["events"] as? Int == 32 && report["snapshots"] as? Int == 33, "every event, the initial state and 32 more")
            // Pages of about 8 MiB of states (three of these), the export's lines and the
            // import's, and the process's own 50–60 MiB: about 100 MiB measured (debug), against
            // 178 with all 32 in one page.
            let peak = try #require(pulled.peakResidentKilobytes, "Linux's /proc gives a process's peak")
            #expect(peak < 135 * 1024, "the puller held \(peak / 1024) MiB at its peak, for 74 MiB of states")
            let copy = try EventLog(path: folder.file("pulled.rewind"), mode: .readOnly)
            #expect(try copy.snapshotIndex(session: 1).count == 33)
        }
    }

    @Test("a pushed demo log, pulled back or read by URL, answers every read command exactly as the original file")
    func sameAnswers() async throws {
        let folder = try TemporaryDirectory()
        let log = try await PushCommandTests.demoLog(actions: 400, in: folder)
        try await PostgresTestServer.withDatabase { location in
            let url = PushCommandTests.url(location)
            let pushed = try await run(builtProduct("rewind"), ["push", log, url, "--json"], in: folder.path)
            #expect(pushed.status == 0, "\(pushed.standardError)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(pushed.standardOutput.utf8)) as? [String: Any])
            let logID = try #require(report["logID"] as? String)
            #expect(logID == (try EventLog(path: log, mode: .readOnly).identity())?.uuidString.lowercased())

            let listed = try await run(builtProduct("rewind"), ["sessions", url, "--json"], in: folder.path)
            #expect(listed.status == 0, "\(listed.standardError)")
            let sessions = try #require(try JSONSerialization.jsonObject(with: Data(listed.standardOutput.utf8)) as? [[String: Any]])
            #expect(sessions.count == 1 && sessions.first?["log"] as? String == logID && sessions.first?["numberInLog"] as? Int == 1)
            #expect(sessions.first?["events"] as? Int == 400 && sessions.first?["install"] as? String == logID, "the install defaults to the log's identity")
            let uuid = try #require(sessions.first?["uuid"] as? String)
            let table = try await run(builtProduct("rewind"), ["sessions", url, "--app-version", "1.0"], in: folder.path)
            #expect(table.standardOutput.contains(uuid) && table.standardOutput.contains("\(logID), 1"), "\(table.standardOutput)")
            let none = try await run(builtProduct("rewind"), ["sessions", url, "--install", "elsewhere"], in: folder.path)
            #expect(none.status == 0 && none.standardOutput == "no sessions\n")

            let pulled = try await run(builtProduct("rewind"), ["pull", url, "--log", logID, "--output", "pulled.rewind"], in: folder.path)
            #expect(pulled.status == 0, "\(pulled.standardError)")
            #expect(pulled.standardOutput.hasPrefix("pulled 1 session (400 events,") && pulled.standardOutput.contains("into pulled.rewind"))
            #expect(!pulled.standardOutput.contains(location.password ?? "no password"), "the store is named without its password")

            let commands: [[String]] = [
                ["sessions"], ["log"], ["log", "--case", "cart.*"], ["show", "--at", "123"], ["stats"], ["check"], ["schema"],
                ["state", "--at", "250"], ["diff", "--from", "10", "--to", "300"], ["verify"],
                ["bisect", "--invariant", "non-negative-total"], ["export", "--output", "X.jsonl"],
            ]
            for command in commands {
                let original = try await run(builtProduct("rewind"), [command[0], log] + command.dropFirst().map { $0 == "X.jsonl" ? "original.jsonl" : $0 }, in: folder.path)
                let copy = try await run(builtProduct("rewind"), [command[0], "pulled.rewind"] + command.dropFirst().map { $0 == "X.jsonl" ? "pulled.jsonl" : $0 }, in: folder.path)
                #expect(original.status == copy.status, "\(command)")
                let normalized = copy.standardOutput.replacingOccurrences(of: "pulled.rewind", with: "demo.rewind")
                    .replacingOccurrences(of: folder.file("pulled.rewind"), with: log).replacingOccurrences(of: "pulled.jsonl", with: "original.jsonl")
                #expect(normalized == original.standardOutput.replacingOccurrences(of: log, with: "demo.rewind"), "\(command)")
                #expect(!original.standardOutput.isEmpty, "\(command) printed something to compare")
            }
            // The same commands on the store's log by URL: the same answers, naming the store.
            let logURL = url + "&log=" + logID
            let name = try PostgresLocation(parsing: logURL).description
            #expect(name.contains(logID) && !name.contains(location.password ?? "no password"))
            let scratch = try TemporaryDirectory()
            for command in commands + [["serve", "--port", "-1"], ["state", "--at", "99999"], ["sessions", "--json"]] {
                let original = try await run(builtProduct("rewind"), [command[0], log] + command.dropFirst().map { $0 == "X.jsonl" ? "original.jsonl" : $0 }, in: folder.path)
                let stored = try await run(
                    builtProduct("rewind"), [command[0], logURL] + command.dropFirst().map { $0 == "X.jsonl" ? "stored.jsonl" : $0 }, in: folder.path,
                    environment: ["TMPDIR": scratch.path]
                )
                #expect(original.status == stored.status, "\(command): \(stored.standardError)")
                var normalized = (stored.standardOutput + stored.standardError).replacingOccurrences(of: name, with: "demo.rewind")
                    .replacingOccurrences(of: "stored.jsonl", with: "original.jsonl")
                var expected = (original.standardOutput + original.standardError).replacingOccurrences(of: log, with: "demo.rewind")
                if command == ["stats"] {
                    // Sizes are the store's: its rows, payloads and states as it stores them.
                    let sizes = #/ [0-9.]+ (B|KiB|MiB) on disk \(payloads [0-9.]+ (B|KiB|MiB), snapshots [0-9.]+ (B|KiB|MiB)\)/#
                    #expect(normalized.contains(sizes) && expected.contains(sizes))
                    (normalized, expected) = (normalized.replacing(sizes, with: " sizes"), expected.replacing(sizes, with: " sizes"))
                }
                #expect(normalized == expected, "\(command)")
                #expect(!stored.standardError.contains(location.password ?? "no password"))
                #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).isEmpty, "\(command) read the store in place, leaving nothing behind")
            }
            let exports = try [folder.file("original.jsonl"), folder.file("pulled.jsonl"), folder.file("stored.jsonl")].map { path in
                try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").dropFirst().joined(separator: "\n")
            }
            #expect(exports[0] == exports[1] && exports[0] == exports[2], "every line after the header (which holds the export time) is the same")

            let json = try await run(builtProduct("rewind"), ["pull", url, "--session", "1", "--output", "one.rewind", "--json"], in: folder.path)
            let fields = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
            #expect(Set(fields.keys) == ["store", "path", "sessions", "events", "snapshots", "gaps", "logID"])
            #expect(fields["logID"] as? String == logID && fields["events"] as? Int == 400)

            let again = try await run(builtProduct("rewind"), ["pull", url, "--log", logID, "--output", "pulled.rewind"], in: folder.path)
            #expect(again.status == 2 && again.standardError.contains("the file exists already"))
        }
    }

    @Test("reading a store's log by URL: a log, install or store that is not there, wrong credentials, nothing listening, TLS refused — exit 2, a clear error, never the password")
    func readRefusals() async throws {
        let folder = try TemporaryDirectory()
        let log = try await PushCommandTests.demoLog(actions: 50, in: folder)
        let logID = try #require(try EventLog(path: log, mode: .readOnly).identity()).uuidString.lowercased()
        try await PostgresTestServer.withDatabase { empty in
            try await PostgresTestServer.withDatabase { location in
                let url = PushCommandTests.url(location)
                let pushed = try await run(builtProduct("rewind"), ["push", log, url], in: folder.path)
                #expect(pushed.status == 0, "\(pushed.standardError)")
                var wrong = location
                wrong.password = "hunter2-wrong"
                let unknown = UUID().uuidString.lowercased()
                let cases: [([String], String)] = [
                    (["state", url + "&log=" + unknown, "--at", "3"], "no sessions were pushed from log \(unknown)"),
                    (["log", url + "&install=nobody"], "the store holds no sessions of install nobody"),
                    (["log", url + "&log=not-a-uuid"], "is not a log's identity"),
                    (["state", url + "&log=" + logID, "--at", "9223372036854775807"], "no event with seq 9223372036854775807"),
                    (["show", url + "&log=" + logID, "--at", "0"], "--at"),
                    (["log", PushCommandTests.url(wrong, withPassword: true) + "&log=" + logID], "the server refused user '\(location.user)'"),
                    (["log", PushCommandTests.url(empty) + "&log=" + logID], "there is no Rewind log store in this database"),
                    (["verify", url.replacingOccurrences(of: ":\(location.port)/", with: ":1/") + "&log=" + logID], "connection refused"),
                    (["log", url.replacingOccurrences(of: "sslmode=disable", with: "sslmode=require") + "&log=" + logID], "offers no TLS"),
                ]
                for (arguments, message) in cases {
                    let result = try await run(builtProduct("rewind"), arguments, in: folder.path, timeout: 60)
                    #expect(result.status == 2, "\(arguments): \(result.standardError)")
                    #expect(result.standardError.contains(message), "\(arguments): \(result.standardError)")
                    #expect(!(result.standardOutput + result.standardError).contains("hunter2") && !result.standardError.contains(location.password ?? "no password"))
                }
            }
        }
    }

    @Test("odd selections and credentials are refused with exit 2, a clear error, no password and no file")
    func refusals() async throws {
        let folder = try TemporaryDirectory()
        try await PostgresTestServer.withDatabase { location in
            await (try PostgresLog.open(location)).close()
            let url = PushCommandTests.url(location)
            var wrong = location
            wrong.password = "hunter2-wrong"
            let cases: [([String], String)] = [
                (["pull", url, "--output", "x.rewind"], "choose the sessions with one of --session, --log or --install"),
                (["pull", url, "--session", "1", "--log", UUID().uuidString, "--output", "x.rewind"], "choose the sessions with one of"),
                (["pull", url, "--session", "0", "--output", "x.rewind"], "--session 0: give a session's number in the store (1 or more) or its UUID"),
                (["pull", url, "--session=-1", "--output", "x.rewind"], "--session -1: give a session's number"),
                (["pull", url, "--session", "abc", "--output", "x.rewind"], "--session abc: give a session's number"),
                (["pull", url, "--session", "9223372036854775808", "--output", "x.rewind"], "give a session's number"),
                (["pull", url, "--log", "not-a-uuid", "--output", "x.rewind"], "--log not-a-uuid: not a log identity (a UUID)"),
                (["pull", url, "--install", "", "--output", "x.rewind"], "--install: give a non-empty id"),
                (["pull", url, "--session", "9223372036854775807", "--output", "x.rewind"], "no session in the store matches sessions 9223372036854775807"),
                (["pull", "mysql://db/x", "--session", "1", "--output", "x.rewind"], "postgres"),
                (["pull", PushCommandTests.url(wrong, withPassword: true), "--session", "1", "--output", "x.rewind"], "the server refused user '\(location.user)'"),
            ]
            for (arguments, message) in cases {
                let result = try await run(builtProduct("rewind"), arguments, in: folder.path)
                #expect(result.status == 2, "\(arguments)")
                #expect(result.standardError.contains(message), "\(arguments): \(result.standardError)")
                #expect(!result.standardError.contains("hunter2") && !result.standardError.contains(location.password ?? "no password"))
                #expect(!FileManager.default.fileExists(atPath: folder.file("x.rewind")), "\(arguments) left a file")
            }
        }
    }
}
