import Foundation
import RewindLog
import RewindTestSupport
import Testing

@Suite("Crash safety")
struct CrashSafetyTests {
    @Test("a recorder killed with SIGKILL at random moments leaves a sound log holding everything it flushed (24 kills)")
    func killedRecorder() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("crash.rewind")
        let stress = builtProduct("rewind-stress")
        #expect(FileManager.default.isExecutableFile(atPath: stress), "build rewind-stress first (swift build)")

        var random: UInt64 = 0x5EED
        func next(_ bound: Int) -> Int {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((random >> 33) % UInt64(bound))
        }
        var flushed: Int64 = 0
        for round in 1...24 {
            let durability = round % 3 == 0 ? "synchronous" : "buffered"
            let child = Process()
            child.executableURL = URL(fileURLWithPath: stress)
            child.arguments = [
                "record", "--log", path, "--durability", durability,
                "--flush-every", "\(3 + next(150))", "--seed", "\(round)",
            ]
            let output = Pipe()
            child.standardOutput = output
            try child.run()

            // Kill after a random number of flush reports; the child keeps recording meanwhile.
            let reportsBeforeKill = 1 + next(8)
            var reports = 0
            var pending = Data()
            while reports < reportsBeforeKill {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                pending += chunk
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    if line.hasPrefix("flushed "), let seq = Int64(line.dropFirst(8)) {
                        flushed = max(flushed, seq)
                        reports += 1
                    }
                }
            }
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            #expect(child.terminationReason == .uncaughtSignal, "round \(round): the child ended before it was killed")

            let report = try EventLog(path: path).checkIntegrity()
            #expect(report.sqlite == ["ok"], "round \(round): \(report)")
            #expect(report.gaps.isEmpty, "round \(round): \(report)")
            #expect(report.sessionsWithoutSnapshot.isEmpty, "round \(round): \(report)")
            #expect(report.seqs?.lowerBound == 1)
            #expect((report.seqs?.upperBound ?? 0) >= flushed, "round \(round): flushed \(flushed) but the log ends at \(report.seqs?.upperBound ?? 0)")
        }
        #expect(flushed > 0)
        #expect(try EventLog(path: path).sessions().count == 24)
    }
}
