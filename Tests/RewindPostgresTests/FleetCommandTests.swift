import Foundation
import Rewind
import RewindExamples
import RewindLog
@testable import RewindPostgres
import RewindTestSupport
import Testing

/// `rewind bisect|verify … --all-sessions`, as the built binary, over a fleet of shop sessions
/// in a log file and pushed into a store: every session that has the seeded bug is found, at the
/// action that caused it, and no other.
@Suite("Fleet bisect and verify", .enabled(if: PostgresTestServer.enabled))
struct FleetCommandTests {
    /// A log of `count` shop sessions of 40 actions, seeds 1…count, odd seeds recorded by app
    /// version 2.2 and even ones by 2.3; and, from the live states as they were recorded (not
    /// from a replay), each session's first seq after which the cart total is negative.
    static func fleetLog(sessions count: Int, in folder: TemporaryDirectory) async throws -> (path: String, broken: [Int64: Int64], versions: [Int64: String]) {
        let path = folder.file("fleet.rewind")
        let log = try EventLog(path: path)
        // Each seed's version, and the index of its first state with a negative total.
        var recorded: [(version: String, breaksAt: Int?)] = []
        for seed in 1...count {
            let version = seed % 2 == 0 ? "2.3" : "2.2"
            let session = try await recordSession(
                into: log, app: AppIdentity(id: "com.example.shop", version: version), initialState: ShopState(),
                reducer: Shop.reducer, effects: Shop.effects(environment: .simulated), user: Shopper(seed: UInt64(seed)), actions: 40
            )
            recorded.append((version, session.states.firstIndex(where: { $0.cart.total < 0 })))
        }
        // The log's sessions in the order they were recorded, listed once (listing them after
        // each session read a growing list a thousand times, most of the fixture's time).
        let sessions = try log.sessions()
        try #require(sessions.count == count)
        var broken: [Int64: Int64] = [:], versions: [Int64: String] = [:]
        for (session, (version, breaksAt)) in zip(sessions, recorded) {
            versions[session.id] = version
            if let breaksAt {
                broken[session.id] = try #require(session.seqRange).lowerBound + Int64(breaksAt)
            }
        }
        try log.close()
        return (path, broken, versions)
    }

    /// The sessions a fleet report found the condition in, by their number in the log, with the seq.
    static func found(_ output: String) throws -> (found: [Int64: Int64], entries: [[String: Any]], report: [String: Any]) {
        let report = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        let entries = try #require(report["entries"] as? [[String: Any]])
        var found: [Int64: Int64] = [:]
        for entry in entries where entry["status"] as? String == "found" {
            let session = try #require(entry["session"] as? [String: Any])
            let number = try #require((session["numberInLog"] ?? session["id"]) as? Int)
            found[Int64(number)] = Int64(try #require(entry["seq"] as? Int))
        }
        return (found, entries, report)
    }

    @Test("fleet bisect over 1,000 sessions in a store finds the seeded bug in every session that has it, at the seq the live app broke, and in no other")
    func thousandSessions() async throws {
        let folder = try TemporaryDirectory()
        let (path, broken, versions) = try await Self.fleetLog(sessions: 1_000, in: folder)
        #expect(broken.count > 20 && broken.count < 980, "a fleet where some sessions have the bug and most do not: \(broken.count)")
        try await PostgresTestServer.withDatabase { location in
            let url = PushCommandTests.url(location)
            let pushed = try await run(builtProduct("rewind"), ["push", path, url, "--install", "ios-4411"], in: folder.path)
            #expect(pushed.status == 0, "\(pushed.standardError)")

            let bisect = try await run(builtProduct("rewind"), ["bisect", url, "--invariant", "non-negative-total", "--all-sessions", "--json"], in: folder.path)
            #expect(bisect.status == 0, "\(bisect.standardError)")
            let (found, entries, report) = try Self.found(bisect.standardOutput)
            #expect(entries.count == 1_000 && report["failed"] as? Int == 0)
            #expect(Set(report.keys) == ["question", "source", "sessions", "hits", "failed", "eventsFolded", "workers", "seconds", "entries"])
            #expect(Set(entries.flatMap(\.keys)) == ["session", "status", "seq", "action", "source", "eventsFolded"])
            let sessionFields = Set(entries.compactMap { $0["session"] as? [String: Any] }.flatMap(\.keys))
            #expect(sessionFields == ["id", "uuid", "install", "log", "numberInLog", "appVersion", "events", "startedAt", "lastEventAt"])
            #expect(found == broken, "every broken session, at the seq it broke, and no other")
            let sources = Set(entries.compactMap { $0["source"] as? String })
            #expect(sources.count >= 1 && sources.allSatisfy { $0.hasPrefix("ShopScreens.swift:") || $0.contains("ShopScreens.swift:") }, "\(sources)")
            #expect(!bisect.standardOutput.contains(location.password ?? "no password"))

            let newer = try await run(builtProduct("rewind"), [
                "bisect", url, "--invariant", "non-negative-total", "--all-sessions", "--app-version", "2.3", "--jobs", "3", "--json",
            ], in: folder.path)
            let (foundNewer, entriesNewer, _) = try Self.found(newer.standardOutput)
            #expect(entriesNewer.count == 500 && foundNewer == broken.filter { versions[$0.key] == "2.3" })

            let file = try await run(builtProduct("rewind"), ["bisect", path, "--invariant", "non-negative-total", "--all-sessions", "--json"], in: folder.path)
            #expect(try Self.found(file.standardOutput).found == broken, "the same answer from the file")

            // The rest over the other half, to keep the suite short.
            let text = try await run(builtProduct("rewind"), [
                "bisect", url, "--where", "cart.total < 0", "--all-sessions", "--install", "ios-4411", "--app-version", "2.2",
            ], in: folder.path)
            #expect(text.status == 0)
            let olderBroken = broken.filter { versions[$0.key] == "2.2" }.count
            #expect(text.standardOutput.hasPrefix("sessions where cart.total < 0 holds: \(olderBroken) of 500 sessions of "), "\(text.standardOutput.prefix(200))")
            #expect(text.standardOutput.contains("(app version 2.2, install ios-4411)"))
            #expect(text.standardOutput.contains("rewind pull '") && !text.standardOutput.contains(location.password ?? "no password"))

            let verify = try await run(builtProduct("rewind"), ["verify", url, "--all-sessions", "--app-version", "2.2", "--json"], in: folder.path)
            #expect(verify.status == 0, "\(verify.standardError)")
            let verified = try #require(try JSONSerialization.jsonObject(with: Data(verify.standardOutput.utf8)) as? [String: Any])
            #expect(verified["sessions"] as? Int == 500 && verified["hits"] as? Int == 0 && verified["failed"] as? Int == 0)
        }
    }

    @Test("a session that cannot be replayed is reported with why, the others still answer, and the exit is 2")
    func failingSession() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("mixed.rewind")
        let log = try EventLog(path: path)
        for (seed, app) in [(1, "com.example.shop"), (2, "com.example.unknown"), (3, "com.example.shop")] {
            _ = try await recordSession(
                into: log, app: AppIdentity(id: app), initialState: ShopState(), reducer: Shop.reducer,
                effects: Shop.effects(environment: .simulated), user: Shopper(seed: UInt64(seed)), actions: 20
            )
        }
        try log.close()
        try await PostgresTestServer.withDatabase { location in
            let url = PushCommandTests.url(location)
            #expect(try await run(builtProduct("rewind"), ["push", path, url], in: folder.path).status == 0)
            for target in [path, url] {
                let result = try await run(builtProduct("rewind"), ["verify", target, "--all-sessions"], in: folder.path)
                #expect(result.status == 2, "\(target)")
                #expect(result.standardOutput.contains("0 of 3 sessions") && result.standardOutput.contains("1 could not be replayed"))
                #expect(result.standardOutput.contains("could not be replayed: ") && result.standardOutput.contains("com.example.unknown"))
            }
        }
    }

    @Test("odd fleet arguments are refused with exit 2 and a clear error that never shows the password")
    func refusals() async throws {
        let folder = try TemporaryDirectory()
        let log = try await PushCommandTests.demoLog(actions: 30, in: folder)
        try await PostgresTestServer.withDatabase { location in
            let url = PushCommandTests.url(location)
            var wrong = location
            wrong.password = "hunter2-wrong"
            let cases: [([String], String)] = [
                (["bisect", log, "--invariant", "non-negative-total", "--app-version", "2"], "--app-version goes with --all-sessions"),
                (["verify", log, "--jobs", "2"], "--jobs goes with --all-sessions"),
                (["verify", log, "--install", "x"], "--install goes with --all-sessions"),
                (["verify", log, "--all-sessions", "--session", "1"], "--session and --all-sessions ask for different things"),
                (["verify", log, "--all-sessions", "--jobs", "0"], "--jobs 0: give 1 to 64"),
                (["verify", log, "--all-sessions", "--jobs=-1"], "--jobs -1: give 1 to 64"),
                (["verify", log, "--all-sessions", "--jobs", "65"], "--jobs 65: give 1 to 64"),
                (["verify", log, "--all-sessions", "--app-version", ""], "--app-version: give a version"),
                (["verify", log, "--all-sessions", "--install", "ios"], "--install selects sessions in a store"),
                (["verify", url], "there is no Rewind log store in this database"),
                (["state", url, "--at", "1"], "there is no Rewind log store in this database"),
                (["state", PushCommandTests.url(wrong, withPassword: true), "--at", "1"], "the server refused user '\(location.user)'"),
                (["verify", PushCommandTests.url(wrong, withPassword: true), "--all-sessions"], "the server refused user '\(location.user)'"),
            ]
            for (arguments, message) in cases {
                let result = try await run(builtProduct("rewind"), arguments, in: folder.path)
                #expect(result.status == 2, "\(arguments)")
                #expect(result.standardError.contains(message), "\(arguments): \(result.standardError)")
                for text in [result.standardError, result.standardOutput] {
                    #expect(!text.contains("hunter2") && !text.contains(location.password ?? "no password"), "\(arguments)")
                }
            }
            let empty = try await run(builtProduct("rewind"), ["verify", url, "--all-sessions"], in: folder.path)
            #expect(empty.status == 2 && empty.standardError.contains("there is no Rewind log store in this database"), "\(empty.standardError)")
            #expect(try await run(builtProduct("rewind"), ["push", log, url], in: folder.path).status == 0)
            let none = try await run(builtProduct("rewind"), ["bisect", url, "--invariant", "non-negative-total", "--all-sessions", "--app-version", "9.9"], in: folder.path)
            #expect(none.status == 1 && none.standardOutput.hasPrefix("sessions that break non-negative-total: 0 of 0 sessions"), "\(none.standardOutput)")

            // A second log: a URL without log= no longer names one.
            let second = try TemporaryDirectory()
            #expect(try await run(builtProduct("rewind"), ["push", try PushCommandTests.demoLog(actions: 20, in: second), url], in: folder.path).status == 0)
            let logID = try #require(try EventLog(path: log, mode: .readOnly).identity()).uuidString.lowercased()
            let unknown = UUID().uuidString.lowercased()
            let moreCases: [([String], String)] = [
                (["state", url, "--at", "1"], "the store holds sessions of several logs: name one with log=ID in the URL"),
                (["state", url + "&log=" + unknown, "--at", "1"], "no sessions were pushed from log \(unknown)"),
                (["state", url + "&log=nope", "--at", "1"], "log=nope is not a log's identity"),
                (["push", log, url + "&log=" + logID], "log= and install= name what to read; push into the store without them"),
                (["push", log, url + "&install=x"], "log= and install= name what to read"),
                (["pull", url + "&log=" + logID, "--session", "1", "--output", "x.rewind"], "choose the sessions with one of --session, --log or --install"),
            ]
            for (arguments, message) in moreCases {
                let result = try await run(builtProduct("rewind"), arguments, in: folder.path)
                #expect(result.status == 2 && result.standardError.contains(message), "\(arguments): \(result.standardError)")
                #expect(!result.standardError.contains("hunter2") && !result.standardError.contains(location.password ?? "no password"), "\(arguments)")
            }
            let oneLog = try await run(builtProduct("rewind"), ["verify", url + "&log=" + logID, "--all-sessions", "--json"], in: folder.path)
            let fleet = try #require(try JSONSerialization.jsonObject(with: Data(oneLog.standardOutput.utf8)) as? [String: Any])
            #expect(oneLog.status == 0 && fleet["sessions"] as? Int == 1, "log= narrows the fleet to that log's one session: \(oneLog.standardOutput)")
            let pulled = try await run(builtProduct("rewind"), ["pull", url + "&log=" + logID, "--output", "by-url.rewind"], in: folder.path)
            #expect(pulled.status == 0 && pulled.standardOutput.contains("the sessions of log \(logID), with its numbers"), "\(pulled.standardOutput)")
        }
    }
}
