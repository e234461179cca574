import Foundation
import RewindLog
import RewindTestSupport
import Testing

@Suite("Crash safety")
struct CrashSafetyTests {
    @Test("rewind-stress kill-loop: 50 SIGKILLs at random moments, mixed durability; after each the log is sound, holds everything promised, and replays and verifies")
    func killLoop() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("crash.rewind")
        let result = try run(
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

    @Test("rewind-stress concurrent: 4 writer and 2 reader processes for 5 s; every action once, in order; no torn batch")
    func concurrentProcesses() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("shared.rewind")
        let result = try run(
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

    @Test("rewind-stress power-loss: 200 simulated power cuts at random writes, mixed durability; nothing promised is lost, every session replays")
    func powerLoss() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("power.rewind")
        let result = try run(
            builtProduct("rewind-stress"),
            ["power-loss", "--rounds", "200", "--durability", "mixed", "--seed", "8191", "--log", path],
            timeout: 900
        )
        #expect(result.status == 0 && !result.signaled, "\(result.standardOutput.suffix(2_000))\(result.standardError)")
        #expect(result.standardOutput.contains("200 rounds (mixed)"))
        #expect(result.standardOutput.contains("failures 0"))
        // Most rounds really were cut (the rest recorded all their actions first).
        let cuts = result.standardOutput.split(separator: "\n").filter { $0.contains(": cut at write") }.count
        #expect(cuts >= 100, "only \(cuts) rounds were cut")
        #expect(try EventLog(path: path, mode: .readOnly).checkIntegrity().isSound)
    }

}
