import ArgumentParser
import Foundation
import RewindExamples
import RewindLog
import RewindReplay

/// Kills `rewind-stress record` at random moments and checks the log after every kill.
struct KillLoopCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kill-loop",
        abstract: "SIGKILL a recording child at random moments; check, replay and verify the log after each kill.",
        discussion: """
            After every kill the log must open, pass PRAGMA integrity_check, hold seqs without \
            gaps and no recorded loss, hold every action the child promised (flushed, or with \
            synchronous durability dispatched), and the sessions the child recorded must replay \
            with the shop's reducer and reproduce every snapshot they hold (verify). Exits 1 on \
            the first failure; the last line gives the figures.
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

    func validate() throws {
        guard rounds > 0 else { throw ValidationError("--rounds must be positive") }
        guard StressSchedule.durabilities.contains(durability) else {
            throw ValidationError("--durability is buffered, synchronous or mixed")
        }
    }

    func run() throws {
        let path = log ?? NSTemporaryDirectory() + "rewind-kill-loop-\(UUID().uuidString).rewind"
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var schedule = StressSchedule(durability: durability, seed: seed)
        let started = ContinuousClock.now
        var checker = LogChecker(path: path)
        var promised: Int64 = 0
        var losses = LossTally()
        for round in 1...rounds {
            let flushEvery = 5 + schedule.next(200)
            let linesBeforeKill = 1 + schedule.next(6)
            let mode = schedule.mode(round: round)
            let child = Process()
            child.executableURL = executable
            child.arguments = ["record", "--log", path, "--durability", mode, "--flush-every", "\(flushEvery)", "--seed", "\(round)"]
            let output = Pipe()
            child.standardOutput = output
            try child.run()
            var said = ChildReport()
            while said.promises < linesBeforeKill {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                said.take(chunk)
            }
            // Let the child run on for up to 20 ms, so kills land anywhere: mid-commit, mid-batch.
            usleep(UInt32(schedule.next(20_000)))
            let killedAt = ChildReport.now
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            // What the child promised before it died counts too.
            said.take(output.fileHandleForReading.readDataToEndOfFile())
            promised = max(promised, said.promised)

            let (report, last, failure) = try checker.check(promised: promised, said: said)
            losses.add(mode: mode, lost: said.lost(logEndsAt: last, end: killedAt))
            print("round \(round) (\(mode)): killed after \(said.promises) promises; \(report); promised \(promised), logged \(last)\(failure.map { "  ← FAILED: \($0)" } ?? "")")
            guard failure == nil else { throw ExitCode(1) }
        }
        let seconds = Double((ContinuousClock.now - started).components.seconds)
        print("""
            \(rounds) kills (\(durability)) in \(Int(seconds)) s, failures 0: the log opened sound after each, \
            lost nothing promised, and replaying \(checker.verifiedEvents) events \
            reproduced \(checker.verifiedSnapshots) snapshots. \(losses.summary). Log: \(path)
            """)
    }
}
