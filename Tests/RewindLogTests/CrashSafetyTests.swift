import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Rewind
import RewindLog
import RewindTestSupport
import Testing

// Each test awaits its processes off the cooperative pool (`run(_:_:)`), so async tests
// beside it are never starved; one at a time, so that their processes do not share two cores
// with each other too. The power-loss runs are a suite of their own (`PowerLossTests`), beside
// this one: one chain of both took as long as the rest of the suite together, and ran its
// last 37 s alone, a core idle.
@Suite("Crash safety", .serialized)
struct CrashSafetyTests {
    @Test("rewind-stress kill-loop: 50 SIGKILLs at random moments, mixed durability; after each the log is sound, holds everything promised, and replays and verifies")
    func killLoop() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("crash.rewind")
        let result = try await run(
            builtProduct("rewind-stress"),
            ["kill-loop", "--rounds", "50", "--durability", "mixed", "--seed", "24157", "--log", path],
            timeout: 600
        )
        #expect(result.status == 0 && !result.signaled, "\(result.standardOutput.suffix(2_000))\(result.standardError)")
        #expect(result.standardOutput.contains("50 kills (mixed)"))
        #expect(result.standardOutput.contains("failures 0"))
        // The loop really killed and resumed: one session per child.
        let log = try EventLog(path: path, mode: .readOnly)
        #expect(try log.sessions().count == 50)
        #expect(try log.checkIntegrity().isSound)
    }

    @Test("a SIGKILL while a snapshot is held back loses the snapshot, never an action: every committed action is there, the log is sound and restores")
    func killedWhileSnapshotHeld() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("held.rewind")
        // The snapshot after the 100th action never finishes encoding; the child waits until all
        // 180 actions are committed, then kills itself.
        let child = try await run(
            builtProduct("rewind-stress"), ["held-snapshot", "--log", path, "--held", "100", "--after", "80"], timeout: 180
        )
        #expect(child.signaled && child.status == SIGKILL, "\(child.standardOutput)\(child.standardError)")
        #expect(child.standardOutput.contains("committed 180"), "\(child.standardOutput)\(child.standardError)")

        let log = try EventLog(path: path, mode: .readOnly)
        #expect(try log.checkIntegrity().isSound)
        let session = try #require(try log.sessions().first)
        #expect(session.eventCount == 180)
        #expect(try log.snapshotIndex(session: session.id).map(\.seq) == [session.baseSeq], "the held snapshot was never written")
        var cursor = log.events(EventFilter(session: session.id))
        let codec = try #require(log.codecs[session.codec])
        let actions = try cursor.collect().map { try $0.decodeAction(as: Int.self, codec: codec, path: path) }
        #expect(actions == Array(repeating: 1, count: 180))
        // The app's next launch restores the state after the last action.
        let restored = try log.restoredState(app: AppIdentity(id: "com.example.held"), reducer: Reducer<HeldCounter, Int> { $0.count += $1 })
        #expect(restored?.count == 180)
    }

    /// The state of `rewind-stress held-snapshot`, as its app would decode it.
    struct HeldCounter: Codable, Sendable {
        var count: Int
        var neverEncodedAt: Int
    }

    @Test("rewind-stress concurrent: 4 writer and 2 reader processes for 5 s; every action once, in order; no torn batch")
    func concurrentProcesses() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("shared.rewind")
        let result = try await run(
            builtProduct("rewind-stress"),
            ["concurrent", "--writers", "4", "--readers", "2", "--seconds", "5", "--batch", "25", "--log", path],
            timeout: 120
        )
        #expect(result.status == 0 && !result.signaled, "\(result.standardOutput)\(result.standardError)")
        #expect(result.standardOutput.contains("failures 0"))
        let log = try EventLog(path: path, mode: .readOnly)
        #expect(try log.sessions().count == 4)
        #expect(try log.checkIntegrity().isSound)
    }

    @Test("rewind-stress shared: recorders trimming, idling, killed and restarted, a batch writer, 2 readers and an export loop on one log for 6 s; nothing promised lost, no session id reused, dead sessions marked")
    func sharedLog() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("shared.rewind")
        let result = try await run(builtProduct("rewind-stress"), ["shared", "--seconds", "6", "--seed", "1", "--log", path], timeout: 180)
        #expect(result.status == 0 && !result.signaled, "\(result.standardOutput)\(result.standardError)")
        #expect(result.standardOutput.contains("failures 0"))
        let kills = try #require(result.standardOutput.firstMatch(of: /\((\d+) kills\)/)).1
        #expect((Int(kills) ?? 0) > 0, "the killed writer was killed")
        #expect(result.standardOutput.contains(/[1-9]\d* exports imported/))
        let log = try EventLog(path: path, mode: .readOnly)
        #expect(try log.checkIntegrity().isSound)
    }
}
