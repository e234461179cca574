import Foundation
import RewindLog
import RewindPostgres
import RewindTestSupport
import Testing

/// `--since`/`--until` over a store's sessions: `sessions postgres://…` and `verify
/// --all-sessions` choose in the store what they choose in the file it was pushed from.
@Suite("time windows over a store's sessions", .enabled(if: PostgresTestServer.enabled))
struct StoreSessionWindowTests {
    @Test("a store lists, and a fleet run replays, the sessions of a window that the pushed file does, with their last event's time")
    func sameAsTheFile() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("day.rewind")
        try TimedSessions.write(TimedSessions.day, to: path)
        try await PostgresTestServer.withDatabase { location in
            let url = PushCommandTests.url(location)
            let pushed = try await run(builtProduct("rewind"), ["push", path, url], in: folder.path)
            #expect(pushed.status == 0, "\(pushed.standardError)")
            func numbers(_ arguments: [String]) async throws -> [Int] {
                let result = try await run(builtProduct("rewind"), arguments + ["--json"], in: folder.path)
                #expect(result.status == 0 || result.status == 1, "\(arguments): \(result.standardError)")
                let json = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8))
                let sessions = (json as? [[String: Any]]) ?? ((json as? [String: Any])?["entries"] as? [[String: Any]])?.compactMap { $0["session"] as? [String: Any] }
                return try #require(sessions, "\(arguments)").compactMap { $0["numberInLog"] as? Int }.sorted()
            }
            let all = try await run(builtProduct("rewind"), ["sessions", url, "--json"], in: folder.path)
            let listed = try #require(try JSONSerialization.jsonObject(with: Data(all.standardOutput.utf8)) as? [[String: Any]])
            #expect(listed.map { $0["lastEventAt"] as? String } == ["2026-11-20T10:30:00.000Z", "2026-11-20T13:00:00.000Z", nil, "2026-11-20T14:10:00.000Z"])
            for (arguments, expected) in TimedSessions.windows {
                #expect(try await numbers(["sessions", url] + arguments) == expected, "sessions \(arguments)")
                #expect(try await numbers(["verify", url, "--all-sessions"] + arguments) == expected, "verify \(arguments)")
            }
        }
    }
}
