import ArgumentParser
import Foundation
import RewindLog

/// Kills `rewind-stress record` at random moments and checks the log after every kill.
struct KillLoopCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kill-loop",
        abstract: "SIGKILL a recording child at random moments; check the log after each kill.",
        discussion: """
            After every kill the log must open, pass PRAGMA integrity_check, hold seqs without \
            gaps, and hold at least every action the child reported as flushed. Exits 1 on the \
            first failure.
            """
    )

    @Option(help: "How many kills.")
    var rounds = 100

    @Option(help: "The log (default: a new file in the temporary directory).")
    var log: String?

    @Option(help: "buffered, synchronous, or mixed (every third round synchronous).")
    var durability = "mixed"

    @Option(help: "Seed of the random kill points.")
    var seed: UInt64 = 1

    func run() throws {
        let path = log ?? NSTemporaryDirectory() + "rewind-kill-loop-\(UUID().uuidString).rewind"
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var random = seed
        func next(_ bound: Int) -> Int {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((random >> 33) % UInt64(bound))
        }
        var flushedTotal: Int64 = 0
        for round in 1...rounds {
            let flushEvery = 5 + next(200)
            let linesBeforeKill = 1 + next(6)
            let mode = durability == "mixed" ? (round % 3 == 0 ? "synchronous" : "buffered") : durability
            let child = Process()
            child.executableURL = executable
            child.arguments = ["record", "--log", path, "--durability", mode, "--flush-every", "\(flushEvery)", "--seed", "\(round)"]
            let output = Pipe()
            child.standardOutput = output
            try child.run()
            var lines = 0
            var buffer = Data()
            while lines < linesBeforeKill {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                buffer += chunk
                while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: buffer[..<newline], as: UTF8.self)
                    buffer.removeSubrange(...newline)
                    if line.hasPrefix("flushed "), let seq = Int64(line.dropFirst(8)) {
                        flushedTotal = max(flushedTotal, seq)
                        lines += 1
                    }
                }
            }
            // Let the child run on for up to 20 ms, so kills land anywhere: mid-commit, mid-batch.
            usleep(UInt32(next(20_000)))
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()

            let report = try EventLog(path: path).checkIntegrity()
            let last = report.seqs?.upperBound ?? 0
            let ok = report.isSound && report.seqs?.lowerBound == 1 && last >= flushedTotal
            print("round \(round): killed after \(lines) flushes; \(report); flushed \(flushedTotal), logged \(last)\(ok ? "" : "  ← FAILED")")
            guard ok else { throw ExitCode(1) }
        }
        print("\(rounds) kills, log sound after each: \(path)")
    }
}
