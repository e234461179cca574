import Foundation
import RewindLog
import RewindTestSupport
import Testing

/// Every seq, range and count argument of every subcommand, given the values that break
/// careless code: the tool answers with exit 0, 1 or 2 and a message, never a signal.
@Suite("rewind argument edges")
struct ArgumentEdgeTests {
    static let edges = ["0", "-1", "1", "20", "21", "9223372036854775807", "-9223372036854775808", "9223372036854775808", "abc", ""]

    /// Each subcommand with a placeholder `V` where an edge value goes.
    static let templates: [[String]] = [
        ["log", "LOG", "--from", "V"], ["log", "LOG", "--to", "V"], ["log", "LOG", "--from=V", "--to", "1"],
        ["log", "LOG", "--from", "20", "--to=V"], ["log", "LOG", "--session=V"], ["log", "LOG", "--limit=V"],
        ["log", "LOG", "--line=V"], ["log", "LOG", "--since=V"], ["log", "LOG", "--until=V"],
        ["export", "LOG", "--output", "out.jsonl", "--from=V"], ["export", "LOG", "--output", "out.jsonl", "--to=V"],
        ["export", "LOG", "--output", "out.jsonl", "--from", "20", "--to=V"], ["export", "LOG", "--output", "out.jsonl", "--session=V"],
        ["show", "LOG", "--at", "V"], ["show", "LOG", "--at=V"],
        ["state", "LOG", "--at=V"], ["diff", "LOG", "--at=V"], ["diff", "LOG", "--from=V", "--to", "5"], ["diff", "LOG", "--from", "5", "--to=V"],
        ["replay", "LOG", "--without=V"], ["replay", "LOG", "--without", "3", "--at=V"], ["replay", "LOG", "--without", "3", "V"],
        ["bisect", "LOG", "--invariant", "non-negative-total", "--session=V"], ["bisect", "LOG", "--where", "cart.total < V"],
        ["shrink", "LOG", "--invariant", "non-negative-total", "--session=V", "--output", "fixture.rewind"],
        ["verify", "LOG", "--session=V"], ["stats", "LOG", "--session=V"], ["stats", "LOG", "--top=V"], ["stats", "LOG", "--buckets=V"],
        ["sessions", "LOG", "--json"], ["check", "LOG"], ["demo", "--actions=V", "--output", "d.rewind"],
        ["demo", "--snapshot-interval=V", "--output", "d.rewind"], ["demo", "--seed=V", "--output", "d.rewind"],
    ]

    @Test("every subcommand over 0, −1, Int64.max, past the end and reversed ranges: exit 0, 1 or 2, never a signal")
    func grid() async throws {
        let (folder, path, _) = try await RewindCommandTests.demoLog(actions: 20)
        let logBefore = try Data(contentsOf: URL(fileURLWithPath: path))
        var runs = 0
        for template in Self.templates {
            for value in Self.edges {
                let arguments = template.map { $0 == "LOG" ? path : $0.replacingOccurrences(of: "V", with: value) }
                for file in ["out.jsonl", "fixture.rewind", "d.rewind"] { try? FileManager.default.removeItem(atPath: folder.file(file)) }
                // A hang is killed after 30 s and shows as signal 9.
                let result = try await run(builtProduct("rewind"), arguments, in: folder.path, timeout: 30)
                runs += 1
                // Plain values in the expectations: a failure prints them, not megabytes of output.
                let (status, signaled, saidWhy) = (result.status, result.signaled, !result.standardError.isEmpty)
                let command = "rewind " + arguments.joined(separator: " ")
                #expect(!signaled, "\(command) died of signal \(status): \(result.standardError.prefix(500))")
                #expect((0...2).contains(status), "\(command) exited \(status)")
                #expect(status != 2 || saidWhy, "\(command) exited 2 without saying why")
            }
        }
        #expect(runs == Self.templates.count * Self.edges.count)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == logBefore, "reading never changes the log")
    }

    @Test("input errors are one line without usage; usage errors keep the usage text")
    func inputErrorsAreOneLine() async throws {
        let (folder, path, _) = try await RewindCommandTests.demoLog(actions: 20)
        let cases: [([String], String)] = [
            (["log", path, "--to", "0"], "Error: --to 0: a seq is 1 or more\n"),
            (["export", path, "--output", "x.jsonl", "--from", "10", "--to", "5"], "Error: --from 10 is after --to 5\n"),
            (["log", path, "--since", "yesterday"], "Error: --since 'yesterday': give an ISO-8601 time (2026-11-22T10:15:00Z) or a duration such as 90s, 10m, 2h or 1d\n"),
            (["state", path, "--at", "0"], "Error: --at 0: a seq is 1 or more\n"),
            (["show", path, "--at", "9223372036854775807"], "Error: \(path): there is no event with seq 9223372036854775807 (the log holds seq 1…20)\n"),
            (["replay", path, "--without", "3", "--at", "99"], "Error: \(path): seq 99 is not in session 1 (its events are seq 1…20); one replay stays within one session\n"),
            (["state", "missing.rewind", "--at", "1"], "Error: missing.rewind: no such file\n"),
        ]
        for (arguments, expected) in cases {
            let result = try await run(builtProduct("rewind"), arguments, in: folder.path)
            #expect(result.status == 2)
            #expect(result.standardError == expected, "rewind \(arguments.joined(separator: " "))")
        }
        let usage = try await run(builtProduct("rewind"), ["state", path], in: folder.path)
        #expect(usage.status == 2)
        #expect(usage.standardError.contains("Usage: rewind state <path>"))
    }
}
