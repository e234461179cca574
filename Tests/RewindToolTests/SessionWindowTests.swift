import Foundation
import GRDB
import RewindLog
import RewindTestSupport
import Testing

/// `--since`/`--until` choosing sessions: `sessions`, and `verify`/`bisect --all-sessions`, as
/// the built binary, over a log whose sessions recorded at set times.
@Suite("time windows over sessions")
struct SessionWindowTests {
    static func log() throws -> (TemporaryDirectory, String) {
        let folder = try TemporaryDirectory()
        let path = folder.file("day.rewind")
        try TimedSessions.write(TimedSessions.day, to: path)
        return (folder, path)
    }

    static func listed(_ arguments: [String], path: String, in folder: TemporaryDirectory) async throws -> [[String: Any]] {
        let result = try await run(builtProduct("rewind"), ["sessions", path, "--json"] + arguments, in: folder.path)
        #expect(result.status == 0, "\(arguments): \(result.standardError)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]], "\(arguments)")
    }

    @Test("sessions --since/--until lists the sessions recording during the window: absolute, open-ended and relative to the last event")
    func sessions() async throws {
        let (folder, path) = try Self.log()
        let all = try await Self.listed([], path: path, in: folder)
        #expect(all.map { $0["id"] as? Int } == [1, 2, 3, 4])
        #expect(all.map { $0["lastEventAt"] as? String } == ["2026-11-20T10:30:00.000Z", "2026-11-20T13:00:00.000Z", nil, "2026-11-20T14:10:00.000Z"])
        for (arguments, expected) in TimedSessions.windows {
            #expect(try await Self.listed(arguments, path: path, in: folder).compactMap { $0["id"] as? Int } == expected, "\(arguments)")
        }
        let table = try await run(builtProduct("rewind"), ["sessions", path, "--since", TimedSessions.iso(14, 11)], in: folder.path)
        #expect(table.status == 0 && table.standardOutput == "no sessions\n", "\(table.standardOutput)")
    }

    @Test("verify and bisect --all-sessions replay only the sessions of the window, and the report says which window")
    func fleet() async throws {
        let (folder, path) = try Self.log()
        for (arguments, expected) in TimedSessions.windows {
            let result = try await run(builtProduct("rewind"), ["verify", path, "--all-sessions", "--json"] + arguments, in: folder.path)
            #expect(result.status == 0 || (expected.isEmpty && result.status == 1), "\(arguments): \(result.standardError)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
            let entries = try #require(report["entries"] as? [[String: Any]])
            let sessions = entries.compactMap { ($0["session"] as? [String: Any])?["id"] as? Int }
            #expect(sessions.sorted() == expected, "\(arguments)")
            #expect(report["since"] as? String == arguments.firstIndex(of: "--since").map { arguments[$0 + 1] }, "\(arguments)")
            #expect(report["until"] as? String == arguments.firstIndex(of: "--until").map { arguments[$0 + 1] }, "\(arguments)")
        }
        let bisect = try await run(
            builtProduct("rewind"), ["bisect", path, "--invariant", "non-negative-total", "--all-sessions", "--since", TimedSessions.iso(13, 30)],
            in: folder.path
        )
        #expect(bisect.standardOutput.hasPrefix("sessions that break non-negative-total: 0 of 1 session of"), "\(bisect.standardOutput)")
        #expect(bisect.standardOutput.contains("since \(TimedSessions.iso(13, 30))"), "\(bisect.standardOutput)")
    }

    @Test("odd windows are refused with exit 2 and say why; a window without --all-sessions is refused on verify and bisect")
    func refusals() async throws {
        let (folder, path) = try Self.log()
        let cases: [([String], String)] = [
            (["sessions", path, "--since", "yesterday"], "--since 'yesterday': give an ISO-8601 time"),
            (["sessions", path, "--until=-5m"], "--until '-5m': give an ISO-8601 time"),
            (["sessions", path, "--since", TimedSessions.iso(12), "--until", TimedSessions.iso(11)], "is after --until"),
            // Durations that cross can only be seen against the last event.
            (["sessions", path, "--since", "1h", "--until", "2h"], "--since 1h is after --until 2h"),
            (["verify", path, "--since", "1h"], "--since goes with --all-sessions"),
            (["bisect", path, "--invariant", "non-negative-total", "--until", "1h"], "--until goes with --all-sessions"),
            (["verify", path, "--all-sessions", "--since", "1h", "--until", "2h"], "--since 1h is after --until 2h"),
        ]
        for (arguments, message) in cases {
            let result = try await run(builtProduct("rewind"), arguments, in: folder.path)
            #expect(result.status == 2, "\(arguments): \(result.standardOutput)")
            #expect(result.standardError.contains(message), "\(arguments): \(result.standardError)")
        }
    }

    @Test("a session whose last seq the log no longer holds is listed without its last event's time, not a failed listing")
    func damagedLastSeq() async throws {
        let (folder, path) = try Self.log()
        let database = try DatabaseQueue(path: path)
        try await database.write { db in try db.execute(sql: "UPDATE sessions SET last_seq = 999 WHERE id = 1") }
        try database.close()
        let listed = try await Self.listed([], path: path, in: folder)
        #expect(listed.map { $0["id"] as? Int } == [1, 2, 3, 4])
        #expect(listed.first?["lastEventAt"] == nil)
        #expect(try await Self.listed(["--until", TimedSessions.iso(10, 59)], path: path, in: folder).compactMap { $0["id"] as? Int } == [1])
    }
}
