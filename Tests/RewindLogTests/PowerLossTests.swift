import Foundation
import RewindLog
import RewindTestSupport
import Testing

// Simulated power cuts (`rewind-stress power-loss`), one run at a time, beside the kills and
// concurrent writers of `CrashSafetyTests`; each awaits its process off the cooperative pool.
@Suite("Power loss", .serialized)
struct PowerLossTests {
    @Test("rewind-stress power-loss: 200 simulated power cuts at random writes, mixed durability; nothing promised is lost, every session replays")
    func powerLoss() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("power.rewind")
        let result = try await run(
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

    @Test("the power-loss run catches a weaker sync: recording with SQLite's synchronous = NORMAL, it fails within 10 rounds")
    func powerLossCatchesNormalSync() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("weak.rewind")
        let result = try await run(
            builtProduct("rewind-stress"),
            ["power-loss", "--rounds", "10", "--durability", "buffered", "--synchronous", "normal", "--seed", "8191", "--log", path],
            timeout: 300
        )
        #expect(result.status == 1 && !result.signaled, "\(result.standardOutput.suffix(2_000))\(result.standardError)")
        #expect(result.standardOutput.contains("were promised and are missing"), "\(result.standardOutput.suffix(2_000))")
    }
}
