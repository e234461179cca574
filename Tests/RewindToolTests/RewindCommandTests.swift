import Foundation
import GRDB
import RewindExamples
import RewindLog
import RewindTestSupport
import Testing

@Suite("rewind subcommands")
struct RewindCommandTests {
    /// A demo log recorded by the binary, and the seq where the seeded bug first shows.
    static func demoLog(actions: Int = 80) async throws -> (folder: TemporaryDirectory, path: String, bugSeq: Int64) {
        let folder = try TemporaryDirectory()
        let result = try await run(builtProduct("rewind"), ["demo", "--quiet", "--actions", "\(actions)", "--output", "demo.rewind"], in: folder.path)
        #expect(result.status == 0, "\(result.standardError)")
        // Where the bug first shows, found independently of the CLI: fold the recorded actions.
        let path = folder.file("demo.rewind")
        let log = try EventLog(path: path, mode: .readOnly)
        var cursor = log.events()
        var state = ShopState()
        var bugSeq: Int64 = -1
        while let event = try cursor.next() {
            Shop.reducer(&state, try log.decodeAction(of: event, as: ShopAction.self))
            if state.cart.total < 0 { bugSeq = event.seq; break }
        }
        return (folder, path, bugSeq)
    }

    static func rewind(_ arguments: String..., in folder: TemporaryDirectory) async throws -> ProcessOutput {
        try await run(builtProduct("rewind"), arguments, in: folder.path)
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("bisect --invariant finds the seeded bug's first action and its source; exit 0")
    func bisectInvariant() async throws {
        let (folder, path, bugSeq) = try await Self.demoLog()
        let text = try await Self.rewind("bisect", path, "--invariant", "non-negative-total", in: folder)
        #expect(text.status == 0)
        #expect(text.standardOutput.contains("breaks: seq \(bugSeq)\n"))
        #expect(text.standardOutput.contains("RewindExamples/ShopScreens.swift:"))
        #expect(text.standardOutput.contains("+     total: -"))

        let json = try await Self.json(try Self.rewind("bisect", path, "--where", "cart.total < 0", "--json", in: folder).standardOutput)
        #expect(json["found"] as? Bool == true)
        #expect((json["seq"] as? NSNumber)?.int64Value == bugSeq)
        #expect((json["event"] as? [String: Any])?["file"] as? String == "RewindExamples/ShopScreens.swift")
    }

    @Test("bisect answers 'no' with exit 1 when nothing breaks")
    func bisectNotFound() async throws {
        let (folder, path, _) = try await Self.demoLog()
        let result = try await Self.rewind("bisect", path, "--where", "checkout.orders.count > 500", in: folder)
        #expect(result.status == 1)
        #expect(result.standardOutput.contains("never holds"))
    }

    @Test("shrink writes a minimal fixture that still breaks the invariant; exit 1 when nothing breaks it")
    func shrink() async throws {
        let (folder, path, bugSeq) = try await Self.demoLog()
        let result = try await Self.rewind("shrink", path, "--invariant", "non-negative-total", "--output", "fixture.rewind", "--json", in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let json = try Self.json(result.standardOutput)
        #expect((json["originalCount"] as? NSNumber)?.int64Value == bugSeq)
        let kept = try #require((json["keptCount"] as? NSNumber)?.intValue)
        #expect(kept >= 3 && kept <= 5)
        let fixture = try EventLog(path: folder.file("fixture.rewind"), mode: .readOnly)
        #expect(try fixture.seqRange() == 1...Int64(kept))
        let bisect = try await Self.json(try Self.rewind("bisect", "fixture.rewind", "--invariant", "non-negative-total", "--json", in: folder).standardOutput)
        #expect((bisect["seq"] as? NSNumber)?.intValue == kept)

        let none = try await Self.rewind("shrink", path, "--where", "checkout.orders.count > 500", "--output", "none.rewind", in: folder)
        #expect(none.status == 1)
        #expect(!FileManager.default.fileExists(atPath: folder.file("none.rewind")))
    }

    @Test("shrink --test writes the Swift test the inspector offers, named after the condition in a folder; an existing file stops it before anything is written")
    func shrinkTest() async throws {
        let (folder, path, _) = try await Self.demoLog()
        try FileManager.default.createDirectory(atPath: folder.file("Tests"), withIntermediateDirectories: true)
        let result = try await Self.rewind("shrink", path, "--invariant", "non-negative-total", "-o", "fixture.rewind", "--test", "Tests", "--json", in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try Self.json(result.standardOutput)["test"] as? String == "Tests/NonNegativeTotalTests.swift")
        let source = try String(contentsOfFile: folder.file("Tests/NonNegativeTotalTests.swift"), encoding: .utf8)
        #expect(source.contains("let log = try fixtureLog(\"Fixtures/fixture.rewind\")"), "\(source)")
        #expect(source.contains("assertInvariant(\"non-negative-total\", throughout: log"))
        #expect(source.contains("<#the cart total is never negative#>"), "the invariant's description is the placeholder")

        // A condition, to a file named on the command line.
        let condition = try await Self.rewind("shrink", path, "--where", "cart.total < 0", "-o", "where.rewind", "--test", "WhereTests.swift", in: folder)
        #expect(condition.status == 0 && condition.standardOutput.contains("wrote WhereTests.swift"), "\(condition.standardError)")
        #expect(try String(contentsOfFile: folder.file("WhereTests.swift"), encoding: .utf8).contains("!(<#cart.total < 0#>)"))

        // An existing test file, or one not ending in .swift: refused before the search.
        for (test, message) in [("WhereTests.swift", "the file exists"), ("notes.txt", "ends in .swift")] {
            let refused = try await Self.rewind("shrink", path, "--where", "cart.total < 0", "-o", "again.rewind", "--test", test, in: folder)
            #expect(refused.status == 2 && refused.standardError.contains(message), "\(refused.standardError)")
            #expect(!FileManager.default.fileExists(atPath: folder.file("again.rewind")))
        }
    }

    @Test("--session on state, diff, replay and serve: the points must be in it; without --at, state shows its last event")
    func sessionScope() async throws {
        let (folder, path, bugSeq) = try await Self.demoLog(actions: 40)
        let last = try #require(try EventLog(path: path, mode: .readOnly).seqRange()?.upperBound)
        let bySession = try await Self.rewind("state", path, "--session", "1", "--json", in: folder)
        let byPoint = try await Self.rewind("state", path, "--at", "\(last)", "--json", in: folder)
        #expect(bySession.status == 0 && bySession.standardOutput == byPoint.standardOutput, "\(bySession.standardError)")
        #expect(try await Self.rewind("diff", path, "--at", "\(bugSeq)", "--session", "1", in: folder).status == 0)
        #expect(try await Self.rewind("replay", path, "--without", "\(bugSeq)", "--session", "1", in: folder).status == 0)
        for arguments in [
            ["state", path, "--session", "1", "--at", "\(last + 5)"], ["diff", path, "--from", "1", "--to", "\(last + 5)", "--session", "1"],
            ["replay", path, "--without", "3", "--at", "\(last + 5)", "--session", "1"],
        ] {
            let refused = try await run(builtProduct("rewind"), arguments, in: folder.path)
            #expect(refused.status == 2 && refused.standardError.contains("seq \(last + 5) is not in session 1"), "\(arguments): \(refused.standardError)")
        }
        for arguments in [["state", path, "--session", "2"], ["serve", path, "--session", "2"]] {
            let refused = try await run(builtProduct("rewind"), arguments, in: folder.path)
            #expect(refused.status == 2 && refused.standardError.contains("there is no session 2"), "\(arguments): \(refused.standardError)")
        }
        let neither = try await run(builtProduct("rewind"), ["state", path], in: folder.path)
        #expect(neither.status == 2 && neither.standardError.contains("give --at SEQ, or --session N for its last event"))
    }

    @Test("serve --answer-within: seconds from 0.01 to 60, refused before anything listens")
    func answerWithin() async throws {
        let (folder, path, _) = try await Self.demoLog(actions: 10)
        for value in ["0", "-1", "61", "nan", "inf", "soon"] {
            let refused = try await run(builtProduct("rewind"), ["serve", path, "--answer-within", value], in: folder.path)
            #expect(refused.status != 0 && refused.standardError.contains("--answer-within"), "\(value): \(refused.standardError)")
            #expect(!refused.standardOutput.contains("http://"), "\(value): \(refused.standardOutput)")
        }
    }

    @Test("a date in a payload reads as a date: ISO-8601 in show --json, a Date in its text, not seconds since 2001")
    func datesReadAsDates() async throws {
        let (folder, path, _) = try await Self.demoLog(actions: 20)
        // The demo's first action is `catalogue.load(at:)`.
        let json = try await Self.json(try Self.rewind("show", path, "--at", "1", "--json", in: folder).standardOutput)
        let payload = try #require(json["payload"] as? [String: Any])
        let load = try #require(((payload["catalogue"] as? [String: Any])?["_0"] as? [String: Any])?["load"] as? [String: Any])
        let at = try #require(load["at"] as? String, "\(load)")
        #expect(at.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/) != nil, "\(at)")
        let text = try await Self.rewind("show", path, "--at", "1", in: folder).standardOutput
        #expect(text.contains(".load(at: Date(\(at)))"), "\(text)")
    }

    @Test("--version names the release and the format versions this build reads and writes")
    func version() async throws {
        let folder = try TemporaryDirectory()
        var answers: [ProcessOutput] = []
        for tool in ["rewind", "rewind-todo"] { answers.append(try await run(builtProduct(tool), ["--version"], in: folder.path)) }
        for answer in answers {
            #expect(answer.status == 0 && answer.standardError.isEmpty)
            #expect(answer.standardOutput.hasPrefix("Rewind ") && answer.standardOutput.hasSuffix(")\n"), "\(answer.standardOutput)")
            #expect(answer.standardOutput.contains("(log files schema \(EventLog.latestSchemaVersion), exports format \(PortableLog.version), PostgreSQL stores schema "))
        }
        #expect(answers[0].standardOutput == answers[1].standardOutput, "an app's own tool says the same")
    }

    @Test("verify passes on a faithful log, and exits 1 naming the seq when a recorded snapshot disagrees")
    func verify() async throws {
        let (folder, path, _) = try await Self.demoLog(actions: 80)
        let ok = try await Self.rewind("verify", path, in: folder)
        #expect(ok.status == 0)
        #expect(ok.standardOutput.hasPrefix("ok: replaying 80 events"))

        // Tamper with the snapshot at seq 50, as a changed reducer would look from the log's side
        // (its JSON as the log reads it, stored back in the clear).
        let recorded = try #require(try EventLog(path: path, mode: .readOnly).snapshot(session: 1, atOrBefore: 50))
        let database = try DatabaseQueue(path: path)
        try await database.write { db in
            try db.execute(
                sql: "UPDATE snapshots SET state = json_set(?, '$.cart.total', 123456), compression = NULL WHERE seq = 50",
                arguments: [String(decoding: recorded.state, as: UTF8.self)]
            )
        }
        try database.close()
        let diverged = try await Self.rewind("verify", path, in: folder)
        #expect(diverged.status == 1)
        #expect(diverged.standardOutput.contains("diverged: the recorded state after seq 50 differs"))
        #expect(diverged.standardOutput.contains("they agreed at seq 25"))
        #expect(diverged.standardOutput.contains("123456"))
    }

    @Test("state, diff and replay answer from the log")
    func stateDiffReplay() async throws {
        let (folder, path, bugSeq) = try await Self.demoLog()
        let state = try await Self.json(try Self.rewind("state", path, "--at", "\(bugSeq)", "--json", in: folder).standardOutput)
        let cart = try #require((state["state"] as? [String: Any])?["cart"] as? [String: Any])
        #expect((cart["total"] as? NSNumber)?.intValue ?? 0 < 0)

        let diff = try await Self.rewind("diff", path, "--at", "\(bugSeq)", in: folder)
        #expect(diff.status == 0)
        #expect(diff.standardOutput.hasPrefix("seq \(bugSeq)  cart."))
        #expect(diff.standardOutput.contains("+     total: -"))
        let between = try await Self.rewind("diff", path, "--from", "1", "--to", "\(bugSeq)", in: folder)
        #expect(between.standardOutput.hasPrefix("state after seq 1 (−) → after seq \(bugSeq) (+):"))

        let whatIf = try await Self.rewind("replay", path, "--without", "\(bugSeq)", "--at", "\(bugSeq)", in: folder)
        #expect(whatIf.status == 0)
        #expect(whatIf.standardOutput.contains("without these actions:\n  - seq \(bugSeq)"))
    }

    @Test("sessions, log, show and stats read any log, as text and as JSON")
    func genericCommands() async throws {
        let (folder, path, bugSeq) = try await Self.demoLog(actions: 40)
        let sessions = try await Self.rewind("sessions", path, in: folder)
        #expect(sessions.standardOutput.contains("com.example.shop"))
        #expect(sessions.standardOutput.contains("1…40"))

        let log = try await Self.rewind("log", path, "--case", "cart.*", "--to", "\(bugSeq)", "--json", in: folder)
        let lines = log.standardOutput.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(!lines.isEmpty && lines.allSatisfy { ($0?["action"] as? String)?.hasPrefix("cart.") == true })
        #expect((lines.last??["seq"] as? NSNumber)?.int64Value == bugSeq)

        let filtered = try await Self.rewind("log", path, "--file", "ShopEffects", "--limit", "2", in: folder)
        #expect(filtered.standardOutput.split(separator: "\n").count == 2)
        #expect(filtered.standardOutput.contains("[effect]"))

        let show = try await Self.rewind("show", path, "--at", "\(bugSeq)", in: folder)
        #expect(show.standardOutput.contains("seq       \(bugSeq) (session 1, com.example.shop 1.0)"))
        #expect(show.standardOutput.contains("source    RewindExamples/ShopScreens.swift:"))

        let stats = try await Self.json(try Self.rewind("stats", path, "--json", in: folder).standardOutput)
        #expect(stats["events"] as? Int == 40)
        #expect(((stats["actionCases"] as? [String: Int])?.values.reduce(0, +)) == 40)
    }

    @Test("stats over a seq range or a time window counts what `log` lists with the same options, and nothing else")
    func statsWindow() async throws {
        let (folder, path, _) = try await Self.demoLog(actions: 60)
        func stats(_ options: String...) async throws -> [String: Any] {
            let result = try await run(builtProduct("rewind"), ["stats", path, "--json"] + options, in: folder.path)
            #expect(result.status == 0, "\(result.standardError)")
            return try Self.json(result.standardOutput)
        }
        func listed(_ options: String...) async throws -> [[String: Any]] {
            let result = try await run(builtProduct("rewind"), ["log", path, "--json"] + options, in: folder.path)
            return try result.standardOutput.split(separator: "\n").map { try Self.json(String($0)) }
        }
        func cases(_ events: [[String: Any]]) -> [String: Int] {
            Dictionary(events.map { ($0["action"] as? String ?? "", 1) }, uniquingKeysWith: +)
        }
        let range = try await stats("--from", "10", "--to", "29")
        #expect(range["events"] as? Int == 20)
        let inRange = try await listed("--from", "10", "--to", "29")
        #expect(range["actionCases"] as? [String: Int] == cases(inRange))
        #expect(range["sessions"] as? Int == 1)

        // A window between the times of seq 10 and seq 50, as `log` reads it (events may share
        // a millisecond, so its count is `log`'s, not 41).
        let all = try await listed()
        let (since, until) = (try #require(all[9]["time"] as? String), try #require(all[49]["time"] as? String))
        let window = try await stats("--since", since, "--until", until)
        let inWindow = try await listed("--since", since, "--until", until)
        #expect(window["events"] as? Int == inWindow.count && !inWindow.isEmpty)
        #expect(window["actionCases"] as? [String: Int] == cases(inWindow))
        #expect(window["from"] as? String == inWindow.first?["time"] as? String && window["to"] as? String == inWindow.last?["time"] as? String)
        // A window after the last event holds nothing.
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let lastTime = try #require(all.last?["time"] as? String)
        let last = try #require(formatter.date(from: lastTime))
        let after = try await stats("--since", formatter.string(from: last.addingTimeInterval(1)))
        #expect(after["events"] as? Int == 0 && after["sessions"] as? Int == 0 && after["actionCases"] as? [String: Int] == [:])

        // Activity over the range's own span; a range past the log is empty; relative times
        // count back from the last event.
        let activity = try #require(try await stats("--from", "10", "--to", "29", "--buckets", "4")["activity"] as? [String: Any])
        let series = try #require(activity["total"] as? [Int])
        #expect(series.count == 4 && series.reduce(0, +) == 20)
        let past = try await stats("--from", "70")
        #expect(past["events"] as? Int == 0 && past["sessions"] as? Int == 0)
        #expect(try await stats("--since", "1d")["events"] as? Int == 60)
        let reversed = try await Self.rewind("stats", path, "--since", "2026-11-02T00:00:00Z", "--until", "2026-11-01T00:00:00Z", in: folder)
        #expect(reversed.status == 2 && reversed.standardError.contains("is after --until"))
    }

    @Test("a time copied from the output selects its event as --since and as --until, even when events share a millisecond")
    func printedTimesSelectTheirEvents() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("ms.rewind")
        // Five events in two milliseconds, one at the very end of a second; rounding would print
        // the first two as .124 and the last as the next second.
        let base = TimedSessions.time(10)
        let offsets = [0.1231, 0.1238, 0.12395, 0.1242, 0.9996]
        try TimedSessions.write([.init(start: base, events: offsets.map { base + $0 })], to: path)
        func listed(_ options: String...) async throws -> [Int] {
            let result = try await run(builtProduct("rewind"), ["log", path, "--json"] + options, in: folder.path)
            #expect(result.status == 0, "\(options): \(result.standardError)")
            return try result.standardOutput.split(separator: "\n").map { try #require(try Self.json(String($0))["seq"] as? Int) }
        }
        let times = try await run(builtProduct("rewind"), ["log", path, "--json"], in: folder.path).standardOutput
            .split(separator: "\n").map { try #require(try Self.json(String($0))["time"] as? String) }
        #expect(times == [".123", ".123", ".123", ".124", ".999"].map { "2026-11-20T10:00:00\($0)Z" })
        for (seq, time) in zip(1..., times) {
            let sharing = zip(1..., times).filter { $0.1 == time }.map(\.0)
            #expect(try await listed("--since", time, "--until", time) == sharing, "\(seq) at \(time)")
            #expect(try await listed("--since", time).first == sharing.first, "\(time)")
            #expect(try await listed("--until", time).last == sharing.last, "\(time)")
        }
        // A time to the second is that whole second, a date that whole day.
        #expect(try await listed("--until", "2026-11-20T10:00:00Z") == [1, 2, 3, 4, 5])
        #expect(try await listed("--since", "2026-11-20T10:00:01Z") == [])
        #expect(try await listed("--since", "2026-11-20", "--until", "2026-11-20") == [1, 2, 3, 4, 5])
        #expect(try await listed("--until", "2026-11-19") == [])
    }

    @Test("export and import carry a log through JSON Lines unchanged")
    func exportImport() async throws {
        let (folder, path, bugSeq) = try await Self.demoLog()
        let export = try await Self.rewind("export", path, "--output", "report.jsonl", in: folder)
        #expect(export.status == 0, "\(export.standardError)")
        let imported = try await Self.rewind("import", "report.jsonl", "--output", "imported.rewind", in: folder)
        #expect(imported.status == 0, "\(imported.standardError)")
        #expect(imported.standardOutput.contains("imported seq 1…80"))

        var original = try EventLog(path: path, mode: .readOnly).events()
        var copy = try EventLog(path: folder.file("imported.rewind"), mode: .readOnly).events()
        let a = try original.collect(), b = try copy.collect()
        #expect(a == b)
        #expect(a.contains { $0.cause != nil } && a.allSatisfy { $0.root != nil }, "causes travel too")
        // An export from a caused event on: its cause is not in the file, so it is not known.
        let caused = try #require(a.first { $0.cause != nil })
        #expect(try await Self.rewind("export", path, "--from", "\(caused.seq)", "--output", "part.jsonl", in: folder).status == 0)
        #expect(try await Self.rewind("import", "part.jsonl", "--output", "part.rewind", in: folder).status == 0)
        let part = try EventLog(path: folder.file("part.rewind"), mode: .readOnly).event(at: caused.seq)
        #expect(part.cause == nil && part.root == nil)
        let why = try await Self.rewind("why", "part.rewind", "--at", "\(caused.seq)", "--json", in: folder)
        #expect(try why.status == 0 && (Self.json(why.standardOutput)["start"] as? String) == "unknown", "\(why.standardError)")
        let bisect = try await Self.rewind("bisect", "imported.rewind", "--invariant", "non-negative-total", "--json", in: folder)
        #expect((try Self.json(bisect.standardOutput)["seq"] as? NSNumber)?.int64Value == bugSeq)
        #expect(try await Self.rewind("verify", "imported.rewind", in: folder).status == 0)

        let again = try await Self.rewind("import", "report.jsonl", "--output", "imported.rewind", in: folder)
        #expect(again.status == 2)
        #expect(again.standardError.contains("the file exists already"))
        try Data("{\"type\":\"event\"}\n".utf8).write(to: URL(fileURLWithPath: folder.file("bad.jsonl")))
        let bad = try await Self.rewind("import", "bad.jsonl", "--output", "bad.rewind", in: folder)
        #expect(bad.status == 2)
        #expect(!FileManager.default.fileExists(atPath: folder.file("bad.rewind")))
    }

    @Test("export never overwrites the log it reads; import refuses what is not a regular file and seqs past 2^53")
    func exportImportRefusals() async throws {
        let (folder, path, _) = try await Self.demoLog(actions: 20)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        for target in [path, "./demo.rewind", folder.file("demo.rewind-wal")] where FileManager.default.fileExists(atPath: target) || target == path {
            let result = try await Self.rewind("export", path, "--output", target, in: folder)
            #expect(result.status == 2)
            #expect(result.standardError.contains("it is the log being exported"), "\(result.standardError)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(try await Self.rewind("verify", path, in: folder).status == 0)

        let export = try await Self.rewind("export", path, "--output", "report.jsonl", in: folder)
        #expect(export.status == 0)
        let permissions = try FileManager.default.attributesOfItem(atPath: folder.file("report.jsonl"))[.posixPermissions] as? Int
        #expect(permissions == 0o600, "an export holds the app's history: its owner's only")

        for device in ["/dev/zero", folder.path] {
            let result = try await run(builtProduct("rewind"), ["import", device, "--output", "x.rewind"], in: folder.path, timeout: 30)
            #expect(result.status == 2 && !result.signaled)
            #expect(result.standardError == "Error: \(device): not a Rewind export (not a regular file); export a log with `rewind export`\n")
            #expect(!FileManager.default.fileExists(atPath: folder.file("x.rewind")))
        }

        // The same export with one seq moved past 2^53, where `seq + 1` and JSON readers fail.
        let lines = try String(contentsOfFile: folder.file("report.jsonl"), encoding: .utf8).split(separator: "\n")
        let last = try #require(lines.lastIndex { $0.contains(#""seq":20"#) })
        var tampered = lines
        tampered[last] = Substring(lines[last].replacingOccurrences(of: #""seq":20"#, with: #""seq":9223372036854775807"#))
        try (tampered.joined(separator: "\n") + "\n").write(toFile: folder.file("huge.jsonl"), atomically: true, encoding: .utf8)
        let huge = try await Self.rewind("import", "huge.jsonl", "--output", "huge.rewind", in: folder)
        #expect(huge.status == 2)
        #expect(huge.standardError == "Error: \(folder.file("huge.jsonl")): the log is damaged (line \(last + 1): seq 9223372036854775807 is outside 1…9007199254740992)\n")
        #expect(!FileManager.default.fileExists(atPath: folder.file("huge.rewind")))
    }

    @Test("bad input: a missing file, a file that is not a log, an unknown seq, a usage error — exit 2 with a clear message")
    func badInput() async throws {
        let (folder, path, _) = try await Self.demoLog(actions: 20)
        let missing = try await Self.rewind("state", "nope.rewind", "--at", "1", in: folder)
        #expect(missing.status == 2)
        #expect(missing.standardError.contains("nope.rewind: no such file"))

        try Data("not a log".utf8).write(to: URL(fileURLWithPath: folder.file("notes.rewind")))
        let foreign = try await Self.rewind("sessions", "notes.rewind", in: folder)
        #expect(foreign.status == 2)
        #expect(foreign.standardError.contains("not a Rewind log"))

        let unknown = try await Self.rewind("show", path, "--at", "99", in: folder)
        #expect(unknown.status == 2)
        #expect(unknown.standardError.contains("there is no event with seq 99 (the log holds seq 1…20)"))

        let usage = try await Self.rewind("bisect", path, in: folder)
        #expect(usage.status == 2)
        #expect(usage.standardError.contains("give either --invariant NAME or --where 'CONDITION'"))

        let predicate = try await Self.rewind("bisect", path, "--where", "cart.totl < 0", in: folder)
        #expect(predicate.status == 2)
        #expect(predicate.standardError.contains("'totl' is not in cart"))

        let invariant = try await Self.rewind("bisect", path, "--invariant", "nope", in: folder)
        #expect(invariant.status == 2)
        #expect(invariant.standardError.contains("known: non-negative-total, discount-within-subtotal"))
    }

    @Test("an event that no longer decodes stops state with its seq and case (exit 2), or is skipped and counted")
    func undecodableEvent() async throws {
        let (folder, path, _) = try await Self.demoLog(actions: 30)
        let database = try DatabaseQueue(path: path)
        try await database.write { db in
            try db.execute(sql: #"UPDATE events SET payload = '{"cart":{"_0":{"teleport":{}}}}' WHERE seq = 20"#)
        }
        try database.close()
        let strict = try await Self.rewind("state", path, "--at", "24", in: folder)
        #expect(strict.status == 2)
        #expect(strict.standardError.contains("seq 20 ("))
        #expect(strict.standardError.contains("no longer decodes"))

        let lenient = try await Self.rewind("state", path, "--at", "24", "--skip-undecodable", in: folder)
        #expect(lenient.status == 0, "\(lenient.standardError)")
        #expect(lenient.standardOutput.contains("(skipped 1 events that no longer decode: seq 20"))
    }

    @Test("a binary demo log: show decodes payloads through the app's types; bisect and export work the same")
    func binaryLog() async throws {
        let folder = try TemporaryDirectory()
        let demo = try await Self.rewind("demo", "--quiet", "--codec", "binary", "--output", "binary.rewind", in: folder)
        #expect(demo.status == 0, "\(demo.standardError)")
        #expect(try EventLog(path: folder.file("binary.rewind"), mode: .readOnly).sessions().first?.codec == "binary")
        let show = try await Self.rewind("show", "binary.rewind", "--at", "12", in: folder)
        #expect(show.standardOutput.contains("payload   ShopAction.cart(\n"))
        #expect(show.standardOutput.contains(".setQuantity("))
        let json = try await Self.json(try Self.rewind("show", "binary.rewind", "--at", "12", "--json", in: folder).standardOutput)
        #expect(json["payload"] is [String: Any])
        let bisect = try await Self.json(try Self.rewind("bisect", "binary.rewind", "--invariant", "non-negative-total", "--json", in: folder).standardOutput)
        #expect((bisect["seq"] as? NSNumber)?.intValue == 12)
        #expect(try await Self.rewind("export", "binary.rewind", "--output", "b.jsonl", in: folder).status == 0)
        #expect(try await Self.rewind("import", "b.jsonl", "--output", "copy.rewind", in: folder).status == 0)
        #expect(try await Self.rewind("verify", "copy.rewind", in: folder).status == 0)

        // A tool that does not know the app still shows the event, and says why it cannot decode it.
        let todoTool = try await run(builtProduct("rewind-todo"), ["show", "binary.rewind", "--at", "12"], in: folder.path)
        #expect(todoTool.status == 0)
        #expect(todoTool.standardOutput.contains("bytes (binary; this tool does not know the app 'com.example.shop' to decode it)"))
    }

    @Test("a log of an unregistered app says which app it needs and how to build its tool; generic commands still work")
    func unregisteredApp() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("other.rewind")
        let log = try EventLog(path: path)
        let session = try log.beginSession(app: AppIdentity(id: "com.example.weather"), initialState: ["city": "Lisbon"])
        try log.append([EventRecord(["refresh": true], source: .init())], to: session)
        try log.close()

        let state = try await Self.rewind("state", path, "--at", "1", in: folder)
        #expect(state.status == 2)
        #expect(state.standardError.contains("recorded by the app 'com.example.weather', which this tool does not know"))
        #expect(state.standardError.contains("RewindTool.main(apps: [ReplayableApp(id: \"com.example.weather\""))
        #expect(try await Self.rewind("log", path, in: folder).status == 0)
    }

    @Test("an app's own three-line tool replays its logs and knows no others")
    func ownReplayTool() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("todo.rewind")
        let live = try await recordSession(
            into: try EventLog(path: path), app: AppIdentity(id: "com.example.todo"), initialState: TodoState(),
            reducer: Todo.reducer, effects: Todo.effects(environment: .simulated()), user: TodoUser(seed: 5), actions: 120
        )
        let tool = builtProduct("rewind-todo")
        let state = try await run(tool, ["state", path, "--at", "120", "--json"], in: folder.path)
        #expect(state.status == 0, "\(state.standardError)")
        let lists = try #require((try Self.json(state.standardOutput)["state"] as? [String: Any])?["lists"] as? [Any])
        #expect(lists.count == live.store.state.lists.count)
        #expect(try await run(tool, ["verify", path], in: folder.path).status == 0)

        let (shopFolder, shopLog, _) = try await Self.demoLog(actions: 10)
        let refused = try await run(tool, ["state", shopLog, "--at", "1"], in: shopFolder.path)
        #expect(refused.status == 2)
        #expect(refused.standardError.contains("'com.example.shop', which this tool does not know (it knows: com.example.todo)"))
    }
}
