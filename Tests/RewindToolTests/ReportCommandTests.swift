import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Rewind
import RewindLog
import RewindTestSupport
import Testing

/// The `rewind` binary and sealed reports: keygen, create, show, and every command reading a
/// report as it reads a log — with the key; without it, only the header.
@Suite("rewind report")
struct ReportCommandTests {
    let folder: TemporaryDirectory
    let rewind = builtProduct("rewind")

    /// A demo log of 600 actions, the team's keys, and a report of the log around seq 400.
    init() async throws {
        folder = try TemporaryDirectory()
        let demo = try await run(rewind, ["demo", "--quiet", "--actions", "600", "--output", "shop.rewind"], in: folder.path)
        #expect(demo.status == 0, "\(demo.standardError)")
        let keygen = try await run(rewind, ["report", "keygen", "--id", "team-2026", "--output", "team.key"], in: folder.path)
        #expect(keygen.status == 0, "\(keygen.standardError)")
        let create = try await run(
            rewind, ["report", "create", "shop.rewind", "--session", "1", "--around", "400", "--events", "100",
                     "--public-key-file", "team.key.pub", "--output", "r.rwreport", "--note", "total went negative"],
            in: folder.path
        )
        #expect(create.status == 0, "\(create.standardError)")
    }

    func rewind(_ arguments: String...) async throws -> ProcessOutput {
        let result = try await run(rewind, arguments, in: folder.path)
        #expect(!result.signaled, "\(arguments): \(result.standardError)")
        return result
    }

    func json(_ arguments: String...) async throws -> [String: Any] {
        let result = try await run(rewind, arguments + ["--json"], in: folder.path)
        #expect(result.status == 0, "\(arguments): \(result.standardError)")
        return try #require(JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
    }

    @Test("keygen writes an owner-only private key and a public key line, and never overwrites either")
    func keygen() async throws {
        let privateMode = try FileManager.default.attributesOfItem(atPath: folder.file("team.key"))[.posixPermissions] as? Int
        #expect(privateMode == 0o600)
        let privateLine = try String(contentsOfFile: folder.file("team.key"), encoding: .utf8)
        let publicLine = try String(contentsOfFile: folder.file("team.key.pub"), encoding: .utf8)
        #expect(privateLine.hasPrefix("team-2026 ") && publicLine.hasPrefix("team-2026 ") && privateLine != publicLine)
        let again = try await rewind("report", "keygen", "--id", "team-2026", "--output", "team.key")
        #expect(again.status == 2 && again.standardError.contains("team.key: the file exists already"))
        #expect(try String(contentsOfFile: folder.file("team.key"), encoding: .utf8) == privateLine)
        let badID = try await rewind("report", "keygen", "--id", "a b", "--output", "other.key")
        #expect(badID.status == 2 && badID.standardError.contains("no spaces") && !FileManager.default.fileExists(atPath: folder.file("other.key")))
        // The private key is nowhere in the report.
        let secret = try #require(Data(base64Encoded: String(privateLine.split(separator: " ")[1].dropLast())))
        #expect(try #require(fileBytes(folder.file("r.rwreport"))).range(of: secret) == nil)
    }

    @Test("show reads the header without the key, and the sealed details with it")
    func show() async throws {
        let header = try await rewind("report", "show", "r.rwreport")
        #expect(header.status == 0)
        #expect(header.standardOutput.contains("manual in com.example.shop 1.0, sealed to key 'team-2026'"))
        #expect(header.standardOutput.contains("content sealed: open it with --key-file holding key 'team-2026'"))
        #expect(!header.standardOutput.contains("total went negative"))
        let opened = try await json("report", "show", "r.rwreport", "--key-file", "team.key")
        let details = try #require(opened["details"] as? [String: Any])
        #expect(details["note"] as? String == "total went negative" && details["triggerSeq"] as? Int == 400 && details["lastSeq"] as? Int == 400)
        #expect((details["keptEvents"] as? Int ?? 0) >= 100)
        let notAReport = try await rewind("report", "show", "shop.rewind")
        #expect(notAReport.status == 2 && notAReport.standardError.contains("not a Rewind report (it does not begin with RWREPORT)"))
    }

    @Test("state, log, verify and sessions read a report as the log it came from, up to its trigger")
    func commandsReadReports() async throws {
        let fromLog = try await json("state", "shop.rewind", "--at", "400")
        let fromReport = try await json("state", "r.rwreport", "--at", "400", "--key-file", "team.key")
        #expect(NSDictionary(dictionary: try #require(fromLog["state"] as? [String: Any]))
            == NSDictionary(dictionary: try #require(fromReport["state"] as? [String: Any])))
        let verify = try await rewind("verify", "r.rwreport", "--key-file", "team.key")
        #expect(verify.status == 0 && verify.standardOutput.hasPrefix("ok: replaying"), "\(verify.standardOutput)\(verify.standardError)")
        let log = try await rewind("log", "r.rwreport", "--key-file", "team.key", "--json")
        let seqs = log.standardOutput.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["seq"] as? Int
        }
        #expect(seqs.last == 400 && seqs.count >= 100 && seqs == Array(seqs[0]...400))
        let after = try await rewind("state", "r.rwreport", "--at", "401", "--key-file", "team.key")
        #expect(after.status == 2 && after.standardError.contains("no event with seq 401"))
    }

    @Test("import makes a log of a report, given the key; the log replays as the report does")
    func importReport() async throws {
        let locked = try await rewind("import", "r.rwreport", "--output", "locked.rewind")
        #expect(locked.status == 2 && locked.standardError.contains("sealed to the team's key 'team-2026'"))
        #expect(!FileManager.default.fileExists(atPath: folder.file("locked.rewind")))
        let imported = try await rewind("import", "r.rwreport", "--key-file", "team.key", "--output", "imported.rewind")
        #expect(imported.status == 0 && imported.standardOutput.contains("…400 into imported.rewind"), "\(imported.standardOutput)\(imported.standardError)")
        let fromImport = try await json("state", "imported.rewind", "--at", "400")
        let fromLog = try await json("state", "shop.rewind", "--at", "400")
        #expect(NSDictionary(dictionary: try #require(fromImport["state"] as? [String: Any])) == NSDictionary(dictionary: try #require(fromLog["state"] as? [String: Any])))
        let again = try await rewind("import", "r.rwreport", "--key-file", "team.key", "--output", "imported.rewind")
        #expect(again.status == 2 && again.standardError.contains("imported.rewind: cannot write to the log (the file exists already"), "\(again.standardError)")
    }

    @Test("the inspector serves a report as a log: its window and the state at its trigger")
    func inspector() async throws {
        let server = try ServedInspector(["r.rwreport", "--key-file", "team.key"], in: folder.path)
        let head = try await server.get("/api/head", token: server.token)
        let seqs = try #require(JSONSerialization.jsonObject(with: head.body) as? [String: Any])["seqs"] as? [Int]
        #expect(head.status == 200 && seqs?.last == 400)
        let state = try await server.get("/api/state?at=400", token: server.token)
        let fromLog = try await json("state", "shop.rewind", "--at", "400")
        let served = try #require(JSONSerialization.jsonObject(with: state.body) as? [String: Any])
        #expect(state.status == 200)
        #expect(NSDictionary(dictionary: try #require(served["state"] as? [String: Any])) == NSDictionary(dictionary: try #require(fromLog["state"] as? [String: Any])))
    }

    /// A collector's store holding reports of the demo made around each of `arounds` (the
    /// files `c0.rwreport`, … beside it), as `rewind collect` keeps them; report `n + 1` is
    /// `cn.rwreport`.
    func collectedStore(around arounds: [String], installs: [String]? = nil) async throws -> String {
        let store = folder.file("reports.sqlite")
        let collected = try ReportStore(path: store, create: true)
        for (index, around) in arounds.enumerated() {
            #expect(try await rewind("report", "create", "shop.rewind", "--session", "1", "--around", around, "--public-key-file", "team.key.pub",
                                     "--output", "c\(index).rwreport").status == 0)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: folder.file("c\(index).rwreport")))
            _ = try await collected.receive(
                bytes, header: try FieldReport(bytes: bytes, path: "c\(index)").header, idempotencyKey: ReportDigest.hex(of: bytes),
                install: installs?[index] ?? "one", token: "shop", receivedAt: Date()
            )
        }
        await collected.close()
        return store
    }

    @Test("bisect and verify over a collector's reports, in parallel: each report as rewind bisect REPORT answers it; --like-report keeps one signature")
    func fleetOverReports() async throws {
        // Two reports of one signature (around 400), one of another (around 200), one from another install.
        let store = try await collectedStore(around: ["400", "400", "200", "400"], installs: ["one", "one", "one", "two"])
        let names = (0..<4).map { "c\($0).rwreport" }
        var alone: [Int?] = []
        for name in names {
            let answer = try await json("bisect", name, "--key-file", "team.key", "--invariant", "non-negative-total")
            alone.append(answer["seq"] as? Int)
        }
        // The reports it opened are gone once it ends.
        let temporary = folder.file("tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        let all = try await run(
            rewind, ["bisect", store, "--all-sessions", "--key-file", "team.key", "--invariant", "non-negative-total", "--json", "--jobs", "2"],
            in: folder.path, environment: ["TMPDIR": temporary]
        )
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary).isEmpty)
        let report = try #require(JSONSerialization.jsonObject(with: Data(all.standardOutput.utf8)) as? [String: Any], "\(all.standardError)")
        let entries = try #require(report["entries"] as? [[String: Any]])
        #expect(entries.count == 4 && report["failed"] as? Int == 0, "\(report)")
        #expect(entries.map { $0["seq"] as? Int } == alone, "each report answers as rewind bisect REPORT does: \(entries)")
        #expect(entries.compactMap { ($0["session"] as? [String: Any])?["report"] as? String } == (1...4).map { "\(store)#\($0)" })
        #expect(all.status == (alone.contains { $0 != nil } ? 0 : 1))
        // --like-report: the reports of report 1's signature (three: 1, 2 and 4); with --install, one install's.
        let like = try await json("bisect", store, "--all-sessions", "--key-file", "team.key", "--invariant", "non-negative-total", "--like-report", "1")
        #expect((like["entries"] as? [[String: Any]])?.compactMap { ($0["session"] as? [String: Any])?["id"] as? Int } == [1, 2, 4], "\(like)")
        let text = try await rewind("bisect", store, "--all-sessions", "--key-file", "team.key", "--invariant", "non-negative-total", "--like-report", "1", "--install", "one")
        #expect(text.standardOutput.contains("of 2 reports of \(store)") && text.standardOutput.contains("rewind serve '\(store)'"), "\(text.standardOutput)")
        // verify: each report replays to its recorded snapshots.
        let verify = try await json("verify", store, "--all-sessions", "--key-file", "team.key")
        #expect(verify["sessions"] as? Int == 4 && verify["failed"] as? Int == 0 && verify["hits"] as? Int == 0, "\(verify)")
        // Refused, saying why, with exit 2: no key, a report not there, --like-report on a log, a bad id.
        for (arguments, message) in [
            (["bisect", store, "--all-sessions", "--invariant", "non-negative-total"], "give the team's key with --key-file"),
            (["bisect", store, "--all-sessions", "--key-file", "team.key", "--invariant", "non-negative-total", "--like-report", "99"], "has no report 99"),
            (["bisect", "shop.rewind", "--all-sessions", "--invariant", "non-negative-total", "--like-report", "1"], "--like-report chooses among a collector's reports"),
            (["bisect", store, "--all-sessions", "--key-file", "team.key", "--invariant", "non-negative-total", "--like-report", "0"], "--like-report 0: give a report's id"),
            (["bisect", store, "--key-file", "team.key", "--invariant", "non-negative-total", "--like-report", "1"], "--like-report goes with --all-sessions"),
        ] {
            let refused = try await run(rewind, arguments, in: folder.path)
            #expect(refused.status == 2 && refused.standardError.contains(message), "\(arguments): \(refused.standardError)")
        }
    }

    @Test("the inspector over a collector's store: its groups as rewind reports gives them; a report opens at its trigger; bad calls are refused")
    func inspectorReportsView() async throws {
        // Three reports in a store, as `rewind collect` keeps them: two of one signature.
        let store = try await collectedStore(around: ["400", "400", "200"])
        let server = try ServedInspector([store, "--key-file", "team.key"], in: folder.path, environment: ["TMPDIR": folder.path])
        func get(_ path: String) async throws -> (status: Int, json: [String: Any]) {
            let answer = try await server.get(path, token: server.token)
            return (answer.status, try #require(JSONSerialization.jsonObject(with: answer.body) as? [String: Any], "\(path): \(String(decoding: answer.body, as: UTF8.self))"))
        }
        let page = try await server.get(server.url.absoluteString, token: nil)
        #expect(String(decoding: page.body, as: UTF8.self).contains(#"<body data-view="reports">"#))

        // The groups: what `rewind reports STORE --key-file --json` prints, with every report's name.
        let listed = try await get("/api/reports")
        #expect(listed.status == 200)
        let triage = try await json("reports", store, "--key-file", "team.key")
        #expect(NSDictionary(dictionary: listed.json) == NSDictionary(dictionary: triage))
        let groups = try #require(listed.json["groups"] as? [[String: Any]])
        #expect(groups.reduce(0) { $0 + ($1["count"] as? Int ?? 0) } == 3 && groups.allSatisfy { ($0["reports"] as? [String])?.count == $0["count"] as? Int })
        #expect(groups.first?["summary"] as? String == "manual · " + ((groups.first?["signature"] as? [String: Any])?["triggerAction"] as? String ?? "?")
            + " at " + ((groups.first?["signature"] as? [String: Any])?["triggerSource"] as? String ?? "?"))

        // A report of the two: its details, then its timeline and the state at its trigger, as the report file's own.
        let name = try #require((groups.first { $0["count"] as? Int == 2 }?["reports"] as? [String])?.first)
        let id = try #require(name.split(separator: "#").last.map(String.init))
        let shown = try await get("/api/report?report=\(id)")
        #expect(shown.status == 200 && shown.json["file"] as? String == name)
        #expect((shown.json["details"] as? [String: Any])?["triggerSeq"] as? Int == 400)
        let state = try await get("/api/state?report=\(id)&at=400")
        let fromLog = try await json("state", "shop.rewind", "--at", "400")
        #expect(state.status == 200)
        #expect(NSDictionary(dictionary: try #require(state.json["state"] as? [String: Any])) == NSDictionary(dictionary: try #require(fromLog["state"] as? [String: Any])))
        let events = try await get("/api/events?report=\(id)&after=0&limit=500")
        let seqs = try #require(events.json["events"] as? [[String: Any]]).compactMap { $0["seq"] as? Int }
        let details = try #require(shown.json["details"] as? [String: Any])
        #expect(seqs.last == 400 && seqs == Array(seqs.sorted()) && seqs.count == details["keptEvents"] as? Int && seqs.first == details["firstSeq"] as? Int, "\(seqs)")

        // Calls that name no report, or one the store does not hold, are refused, saying why.
        let noReport = try await get("/api/events?after=0")
        #expect(noReport.status == 400 && (noReport.json["error"] as? String)?.contains("needs the parameter 'report'") == true, "\(noReport.json)")
        #expect(try await get("/api/state?report=abc&at=1").status == 400)
        #expect(try await get("/api/state?report=0&at=1").status == 400)
        let missing = try await get("/api/state?report=999&at=1")
        #expect(missing.status == 404 && (missing.json["error"] as? String)?.contains("no report 999") == true, "\(missing.json)")
        #expect(try await get("/api/reports?app=x").status == 400)
        #expect(try await get("/api/report?report=\(id)&at=4").status == 400)
        // The opened report's file lives in a folder of the launch's own, gone when it stops.
        let folders = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("rewind-reports-") }
        #expect(folders.count == 1)
        kill(server.process.processIdentifier, SIGINT)
        server.process.waitUntilExit()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("rewind-reports-") }.isEmpty)

        // Without the key: the groups from the headers; a report's timeline says what it needs.
        let locked = try ServedInspector([store], in: folder.path)
        #expect(try await locked.get("/api/reports", token: locked.token).status == 200)
        let sealed = try await locked.get("/api/events?report=\(id)&after=0", token: locked.token)
        #expect(sealed.status == 422 && String(decoding: sealed.body, as: UTF8.self).contains("give its private key with --key-file"), "\(String(decoding: sealed.body, as: UTF8.self))")
        // A store has no sessions to open on.
        let session = try await rewind("serve", store, "--session", "1")
        #expect(session.status == 2 && session.standardError.contains("--session: a collector's store has reports"), "\(session.standardError)")
    }

    @Test("without the key, with a wrong one, or with a changed byte, every command says why and exits 2")
    func refusals() async throws {
        let locked = try await rewind("state", "r.rwreport", "--at", "400")
        #expect(locked.status == 2 && locked.standardError.contains("it is sealed to the team's key 'team-2026'; give its private key with --key-file"))
        _ = try await rewind("report", "keygen", "--id", "team-2026", "--output", "other.key")
        let wrong = try await rewind("state", "r.rwreport", "--at", "400", "--key-file", "other.key")
        #expect(wrong.status == 2 && wrong.standardError.contains("it fails authentication"))
        var bytes = try #require(fileBytes(folder.file("r.rwreport")))
        bytes[bytes.count / 2] ^= 1
        try bytes.write(to: URL(fileURLWithPath: folder.file("changed.rwreport")))
        let changed = try await rewind("sessions", "changed.rwreport", "--key-file", "team.key")
        #expect(changed.status == 2 && changed.standardError.contains("changed.rwreport: cannot open this report (it fails authentication"))
        try bytes.prefix(100).write(to: URL(fileURLWithPath: folder.file("cut.rwreport")))
        let cut = try await rewind("log", "cut.rwreport", "--key-file", "team.key")
        #expect(cut.status == 2 && cut.standardError.contains("cut.rwreport: cannot open this report"))
    }

    @Test("preview shows what a report would reveal without a key, and --content is exactly what is sealed")
    func preview() async throws {
        let summary = try await rewind("report", "preview", "shop.rewind", "--session", "1", "--around", "400", "--events", "100")
        #expect(summary.status == 0 && summary.standardOutput.contains("a manual report of session 1:"), "\(summary.standardOutput)\(summary.standardError)")
        #expect(summary.standardOutput.contains("the secret scan found nothing"))
        let content = try await rewind("report", "preview", "shop.rewind", "--session", "1", "--around", "400", "--events", "100", "--content")
        let lines = content.standardOutput.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.first?["type"] as? String == "report" && lines.first?["triggerSeq"] as? Int == 400)
        #expect(lines.compactMap { $0["type"] as? String == "event" ? $0["seq"] as? Int : nil }.last == 400)
        // The report create seals holds the same details.
        let shown = try await json("report", "show", "r.rwreport", "--key-file", "team.key")
        let details = try #require(shown["details"] as? [String: Any])
        #expect(details["firstSeq"] as? Int == lines.first?["firstSeq"] as? Int && details["keptEvents"] as? Int == lines.first?["keptEvents"] as? Int)
    }

    @Test("create refuses odd arguments before writing anything")
    func createArguments() async throws {
        for (arguments, message) in [
            (["--events", "0"], "--events 0: a count is 1 or more"),
            (["--events", "5", "--whole-session"], "give one"),
            (["--seconds=-1"], "--seconds -1.0: give a number of seconds above 0"),
            (["--seconds", "nan"], "--seconds nan: give a number of seconds above 0"),
            (["--size-limit", "0"], "--size-limit 0: a size is 1 or more"),
            (["--around", "601000"], "seq 601000"),
            (["--session", "9"], "session 9"),
        ] {
            var all = ["report", "create", "shop.rewind", "--public-key-file", "team.key.pub", "--output", "new.rwreport"]
            if !arguments.contains("--session") { all += ["--session", "1"] }
            let result = try await run(rewind, all + arguments, in: folder.path)
            #expect(result.status == 2 && result.standardError.contains(message), "\(arguments): \(result.standardError)")
            #expect(!FileManager.default.fileExists(atPath: folder.file("new.rwreport")), "\(arguments)")
        }
        let noKey = try await rewind("report", "create", "shop.rewind", "--session", "1", "--public-key-file", "missing.pub", "--output", "new.rwreport")
        #expect(noKey.status == 2 && noKey.standardError.contains("--public-key-file missing.pub: no such file"))
        let exists = try await rewind("report", "create", "shop.rewind", "--session", "1", "--public-key-file", "team.key.pub", "--output", "r.rwreport")
        #expect(exists.status == 2 && exists.standardError.contains("r.rwreport: the file exists already"))
    }

    @Test("reports groups a folder of reports by signature, counts them, lists what is not a report, and with the key adds the crash site")
    func triage() async throws {
        try FileManager.default.createDirectory(atPath: folder.file("inbox"), withIntermediateDirectories: true)
        for (index, extra) in [[], [], ["--seal-trigger"]].enumerated() {
            let create = try await run(rewind, [
                "report", "create", "shop.rewind", "--session", "1", "--around", "400", "--public-key-file", "team.key.pub",
                "--output", "inbox/\(index).rwreport",
            ] + extra, in: folder.path)
            #expect(create.status == 0, "\(create.standardError)")
        }
        try Data("not a report".utf8).write(to: URL(fileURLWithPath: folder.file("inbox/junk.rwreport")))
        // A crash: its site is sealed, so only the key groups by it.
        try CrashMarkBytes.crashedLog(at: folder.file("crashed.rewind")).close()
        #expect(try await rewind("report", "create", "crashed.rewind", "--session", "1", "--public-key-file", "team.key.pub",
                                 "--output", "inbox/crash.rwreport").status == 0)

        let grouped = try await json("reports", "inbox")
        let groups = try #require(grouped["groups"] as? [[String: Any]])
        let counts = groups.map { $0["count"] as? Int ?? 0 }
        #expect(counts == [2, 1, 1], "\(groups)")
        let first = try #require(groups.first?["signature"] as? [String: Any])
        #expect((first["reason"] as? [String: Any])?["kind"] as? String == "manual" && first["triggerAction"] is String && first["triggerSource"] is String)
        #expect(groups.allSatisfy { ($0["signature"] as? [String: Any])?["crashSite"] == nil })
        #expect((grouped["unreadable"] as? [[String: Any]])?.count == 1)
        // Which build replays each group: from the header, the app version and schema versions.
        let builds = try #require(groups.first?["builds"] as? [[String: Any]])
        #expect(builds.count == 1 && builds.first?["reports"] as? Int == 2 && builds.first?["version"] is String && builds.first?["actionFingerprint"] == nil)
        let opened = try await json("reports", "inbox", "--key-file", "team.key")
        let openedGroups = try #require(opened["groups"] as? [[String: Any]])
        let sites = openedGroups.compactMap { ($0["signature"] as? [String: Any])?["crashSite"] as? String }
        #expect(sites == ["my-app+0x1234"])
        // Opened, the report that sealed its trigger joins the two whose trigger is the same.
        #expect(openedGroups.map { $0["count"] as? Int ?? 0 } == [3, 1], "\(openedGroups)")
        #expect(NSDictionary(dictionary: try #require(openedGroups.first?["signature"] as? [String: Any])) == NSDictionary(dictionary: first))

        // What opening added is kept beside the reports, owner-only, and used by the next listing:
        // a key file with the same id but other bytes (which opens nothing) lists the same groups.
        let cache = folder.file("inbox/.rewind-triage.json")
        #expect(try FileManager.default.attributesOfItem(atPath: cache)[.posixPermissions] as? Int == 0o600)
        let impostor = try await run(rewind, ["report", "keygen", "--id", "team-2026", "--output", "impostor.key"], in: folder.path)
        #expect(impostor.status == 0)
        let cached = try await json("reports", "inbox", "--key-file", "impostor.key")
        #expect(NSDictionary(dictionary: cached) == NSDictionary(dictionary: opened))
        // A damaged cache is ignored and made again.
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: cache))
        let unopened = try await json("reports", "inbox", "--key-file", "impostor.key")
        #expect((unopened["unreadable"] as? [[String: Any]])?.count == 5, "without the cache, the impostor opens nothing: \(unopened)")
        #expect(NSDictionary(dictionary: try await json("reports", "inbox", "--key-file", "team.key")) == NSDictionary(dictionary: opened))
        #expect(NSDictionary(dictionary: try await json("reports", "inbox", "--key-file", "impostor.key")) == NSDictionary(dictionary: opened))
        // Opened, the fingerprints of the types the shop's session was recorded with, as the log has them.
        let shop = try EventLog(path: folder.file("shop.rewind"), mode: .readOnly).sessions()[0]
        let openedBuild = try #require((openedGroups.first?["builds"] as? [[String: Any]])?.first)
        #expect(shop.actionFingerprint != nil && openedBuild["actionFingerprint"] as? String == shop.actionFingerprint)
        #expect(openedBuild["stateFingerprint"] as? String == shop.stateFingerprint)
        // As text; a path that is not there is an input error.
        let text = try await rewind("reports", "inbox")
        #expect(text.status == 0 && text.standardOutput.contains("crash (SIGSEGV)") && text.standardOutput.contains("1 file not read as reports"), "\(text)")
        #expect(try await rewind("reports", "nowhere").status != 0)
    }

    @Test("a report recorded with another build's types is refused by the replay commands, saying how they differ; --allow-drift replays it anyway")
    func driftRefused() async throws {
        // The shop's app id, recorded by a build whose state and action are other types.
        let shopID = try EventLog(path: folder.file("shop.rewind"), mode: .readOnly).sessions()[0].app.id
        var configuration = RecorderConfiguration<[String], String>()
        configuration.typeShapes = .generatedOrProbed
        let recorder = Recorder<[String], String>(
            log: try EventLog(path: folder.file("other-build.rewind")), app: AppIdentity(id: shopID, version: "0.9"), configuration: configuration
        )
        let store = Store(initialState: [], reducer: Reducer<[String], String> { notes, note in notes.append(note) }, middleware: recorder.middleware)
        store.dispatch("a")
        store.dispatch("b")
        try await recorder.close()
        let create = try await rewind("report", "create", "other-build.rewind", "--session", "1", "--public-key-file", "team.key.pub", "--output", "drift.rwreport")
        try #require(create.status == 0, "\(create.standardError)")
        let refused = try await rewind("state", "drift.rwreport", "--key-file", "team.key", "--session", "1")
        #expect(refused.status == 2 && refused.standardError.contains("whose types differ from this tool's") && refused.standardError.contains("--allow-drift"), "\(refused)")
        #expect(refused.standardError.contains("fingerprint"), "the difference is named: \(refused.standardError)")
        // The shop's own report replays as before; with --allow-drift the refusal is not made.
        #expect(try await rewind("state", "r.rwreport", "--key-file", "team.key", "--session", "1").status == 0)
        let allowed = try await rewind("state", "drift.rwreport", "--key-file", "team.key", "--session", "1", "--allow-drift")
        #expect(!allowed.standardError.contains("whose types differ from this tool's"), "\(allowed)")
    }
}
