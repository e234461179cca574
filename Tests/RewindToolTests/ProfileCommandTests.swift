import Foundation
import RewindLog
import RewindTestSupport
import Testing

/// `rewind profile`, run as the built binaries on the demo's log: `rewind` (the shop's reducer)
/// and `rewind-shop-slowed` (the same tool with `checkout.submit` spinning 100 ms, as a later
/// build with a regression would).
@Suite("rewind profile")
struct ProfileCommandTests {
    static func slowed(_ arguments: String..., in folder: TemporaryDirectory) async throws -> ProcessOutput {
        try await run(builtProduct("rewind-shop-slowed"), arguments, in: folder.path)
    }

    @Test("a deliberately slow case is named the costliest, and its actions the slowest, with their sources")
    func namesTheSlowCase() async throws {
        let (folder, path, _) = try await RewindCommandTests.demoLog()
        var cursor = try EventLog(path: path, mode: .readOnly).events()
        let events = try cursor.collect()
        let submits = events.filter { $0.actionCase == "checkout.submit" }.map(\.seq)
        try #require(submits.count >= 2)

        let text = try await Self.slowed("profile", path, in: folder)
        #expect(text.status == 0, "\(text.standardError)")
        let lines = text.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0].hasPrefix("profile of \(events.count) actions in session 1: reducers took "), "\(text.standardOutput)")
        #expect(lines[2].hasPrefix("case ") && lines[3].hasPrefix("checkout.submit  "), "\(text.standardOutput)")
        let slowest = try #require(lines.firstIndex(of: "slowest actions:"))
        // Every submit is among the slowest (by 100 ms each, only an action the system preempted
        // as long could come between them), with its source.
        let listed = lines[(slowest + 1)...].filter { $0.contains("  checkout.submit  RewindExamples/ShopScreens.swift:") && $0.hasSuffix("payTapped(orderID:at:)") }
        #expect(Set(listed.compactMap { $0.split(separator: " ").drop { $0 != "seq" }.dropFirst().first.flatMap { Int64($0) } }) == Set(submits), "\(lines)")
        // Each with its time and unit before its seq. (The table pads its time column: "100 ms"
        // is a character narrower than "10.3 ms"; past a second, in seconds.)
        #expect(listed.allSatisfy { $0.range(of: #"[0-9] m?s +seq "#, options: .regularExpression) != nil }, "\(listed)")

        // Two places more than there are submits: as above, an action the system preempted for
        // long could take one (a CI run's parallel tests did, on 2 cores, when the spin was 10 ms).
        let asked = submits.count + 2
        let json = try RewindCommandTests.json(try await Self.slowed("profile", path, "--json", "--slowest", "\(asked)", in: folder).standardOutput)
        #expect((json["actions"] as? Int) == events.count && (json["sessions"] as? [Int]) == [1])
        let cases = try #require(json["cases"] as? [[String: Any]])
        #expect(cases.first?["actionCase"] as? String == "checkout.submit" && (cases.first?["count"] as? Int) == submits.count)
        #expect(((cases.first?["p50Nanoseconds"] as? NSNumber)?.int64Value ?? 0) >= 90_000_000)
        #expect(cases.reduce(0) { $0 + (($1["count"] as? Int) ?? 0) } == events.count)
        let slow = try #require(json["slowest"] as? [[String: Any]])
        let slowSubmits = slow.filter { $0["actionCase"] as? String == "checkout.submit" }.compactMap { ($0["seq"] as? NSNumber)?.int64Value }
        #expect(slow.count == min(asked, events.count) && Set(slowSubmits) == Set(submits), "\(slow)")
        let sources = try #require(json["slowestEvents"] as? [[String: Any]])
        #expect(sources.map { ($0["seq"] as? NSNumber)?.int64Value } == slow.map { ($0["seq"] as? NSNumber)?.int64Value })
        #expect(sources.first?["file"] as? String == "RewindExamples/ShopScreens.swift")

        // The shop's own build has no such case: submit is no slower than the rest.
        let plain = try RewindCommandTests.json(try await RewindCommandTests.rewind("profile", path, "--json", in: folder).standardOutput)
        let plainSubmit = try #require((plain["cases"] as? [[String: Any]])?.first { $0["actionCase"] as? String == "checkout.submit" })
        #expect(((plainSubmit["p50Nanoseconds"] as? NSNumber)?.int64Value ?? .max) < 1_000_000)
    }

    @Test("--baseline: the slowed build is flagged against the shop's, exit 1; the other way round it is faster")
    func baseline() async throws {
        let (folder, path, _) = try await RewindCommandTests.demoLog()
        let shop = builtProduct("rewind"), slowedTool = builtProduct("rewind-shop-slowed")

        let regressed = try await Self.slowed("profile", path, "--baseline", shop, "--runs", "3", in: folder)
        #expect(regressed.status == 1, "\(regressed.standardError)")
        #expect(regressed.standardOutput.hasPrefix("compared 3 alternated runs of this build and the baseline \(shop)\nslower by at least 10 % in every pairing: checkout.submit"), "\(regressed.standardOutput)")
        #expect(regressed.standardOutput.contains("\ncheckout.submit  "))

        let json = try RewindCommandTests.json(try await Self.slowed("profile", path, "--baseline=\(shop)", "--runs=2", "--threshold", "50", "--json", in: folder).standardOutput)
        let comparison = try #require(json["comparison"] as? [String: Any])
        #expect(comparison["runs"] as? Int == 2 && (comparison["threshold"] as? Double) == 0.5 && json["baseline"] as? String == shop)
        let first = try #require((comparison["cases"] as? [[String: Any]])?.first)
        #expect(first["actionCase"] as? String == "checkout.submit" && first["slower"] as? Bool == true)
        // Every pairing past the 50 % asked for; how far past depends on the machine's load (a
        // clean-clone CI run saw the baseline's own submits preempted for milliseconds).
        #expect((first["ratios"] as? [Double])?.count == 2 && (first["ratios"] as? [Double])?.allSatisfy { $0 >= 1.5 } == true, "\(first)")

        let improved = try await RewindCommandTests.rewind("profile", path, "--baseline", slowedTool, "--runs", "3", in: folder)
        #expect(improved.standardOutput.contains("\nfaster by at least 10 % in every pairing: checkout.submit"), "\(improved.standardOutput)")
        // A change of a thousandfold and more still reads as more than nothing.
        #expect(!improved.standardOutput.contains(" 0.00×"), "\(improved.standardOutput)")
        let slowerLine = improved.standardOutput.split(separator: "\n").dropFirst().first.map(String.init) ?? ""
        #expect(!slowerLine.contains("checkout.submit"))
        #expect(improved.status == (slowerLine.hasPrefix("slower") ? 1 : 0))
    }

    @Test("bad input: an unknown tool, a tool that cannot profile, odd numbers, comparing options without a baseline")
    func badInput() async throws {
        let (folder, path, _) = try await RewindCommandTests.demoLog()
        let missing = try await RewindCommandTests.rewind("profile", path, "--baseline", "no-such-rewind-tool", in: folder)
        #expect(missing.status == 2 && missing.standardError.contains("--baseline no-such-rewind-tool: no executable of that name on PATH"))
        let folderTool = try await RewindCommandTests.rewind("profile", path, "--baseline", folder.path, in: folder)
        #expect(folderTool.status == 2 && folderTool.standardError.contains("no executable at that path"))
        // The todo app's tool does not know the shop: its error is passed on, with who said it.
        let otherApp = try await RewindCommandTests.rewind("profile", path, "--baseline", builtProduct("rewind-todo"), "--runs", "1", in: folder)
        #expect(otherApp.status == 2 && otherApp.standardError.contains("baseline \(builtProduct("rewind-todo")) exited 2 profiling the log:"), "\(otherApp.standardError)")
        #expect(otherApp.standardError.contains("which this tool does not know"))
        // A tool that prints something else than a profile.
        let echo = try await RewindCommandTests.rewind("profile", path, "--baseline", "/bin/echo", "--runs", "1", in: folder)
        #expect(echo.status == 2 && echo.standardError.contains("baseline /bin/echo did not answer with a profile"), "\(echo.standardError)")
        for arguments in [["--runs", "0"], ["--runs", "101"], ["--slowest", "-1"], ["--threshold", "-5"], ["--threshold", "nan"], ["--from", "9", "--to", "3"], ["--session", "0"]] {
            let refused = try await run(builtProduct("rewind"), ["profile", path, "--baseline", "/bin/echo"] + arguments, in: folder.path)
            #expect(refused.status == 2 && refused.standardError.contains(arguments[0]), "\(arguments): \(refused.standardError)")
        }
        // The log is checked before any build runs: this tool's own message.
        let missingLog = try await RewindCommandTests.rewind("profile", "missing.rewind", "--baseline", "/bin/echo", in: folder)
        #expect(missingLog.status == 2 && missingLog.standardError.contains("missing.rewind: no such file"), "\(missingLog.standardError)")
        let unpaired = try await RewindCommandTests.rewind("profile", path, "--runs", "3", in: folder)
        #expect(unpaired.status == 2 && unpaired.standardError.contains("give --baseline TOOL"))
        let empty = try await RewindCommandTests.rewind("profile", path, "--from", "100000", in: folder)
        #expect(empty.status == 2 && empty.standardError.contains("no events between --from and --to"))
    }
}
