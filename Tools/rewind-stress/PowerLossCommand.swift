import ArgumentParser
import Foundation
import RewindExamples
import RewindLog
import RewindReplay

/// Simulated power cuts at random writes, through ``PowerCutFileSystem``.
struct PowerLossCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "power-loss",
        abstract: "Cut the power at random writes while a child records; check what a reboot finds.",
        discussion: """
            Each round a child records the shop app through a VFS that keeps only what xSync made \
            durable, and stops dead before a random write to the log or its -wal. The log and \
            -wal are then put back to their durable content and the -shm removed, as after a \
            reboot; a file whose folder was not synced since it was created is gone. The log must \
            open, pass integrity_check, hold seqs without gaps, hold every action the child \
            promised (dispatched before a flush returned, or with synchronous durability \
            dispatched), each the action the child's seeded script dispatched there, and its \
            sessions must replay and reproduce their snapshots (one every 20 actions). Exits 1 \
            on the first failure.
            """
    )

    @Option(help: "How many power cuts.") var rounds = 100
    @Option(help: "The log (default: a new file in the temporary directory).") var log: String?
    @Option(help: "buffered, synchronous, or mixed (every third round synchronous).") var durability = "mixed"
    @Option(help: "Cut at a write chosen from 1 to this many.") var maxWrite = 400
    @Option(help: "Actions each child records at most.") var actions = 300
    @Option(help: "Seed of the random cut points.") var seed: UInt64 = 1
    @Option(help: "SQLite's synchronous setting the children record with: full (the log's), or normal, which this run must catch (it fails within a few rounds).")
    var synchronous = "full"

    func validate() throws {
        guard rounds > 0, maxWrite > 0, actions > 0 else { throw ValidationError("--rounds, --max-write and --actions must be positive") }
        guard StressSchedule.durabilities.contains(durability) else {
            throw ValidationError("--durability is buffered, synchronous or mixed")
        }
        guard ["full", "normal"].contains(synchronous) else { throw ValidationError("--synchronous is full or normal") }
    }

    func run() throws {
        let path = log ?? NSTemporaryDirectory() + "rewind-power-loss-\(UUID().uuidString).rewind"
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var schedule = StressSchedule(durability: durability, seed: seed)
        let started = ContinuousClock.now
        var checker = LogChecker(path: path)
        var promised: Int64 = 0
        var cuts = 0
        var losses = LossTally()
        for round in 1...rounds {
            let mode = schedule.mode(round: round)
            let cutAt = 1 + schedule.next(maxWrite)
            let child = Process()
            child.executableURL = executable
            child.arguments = [
                "record", "--log", path, "--durability", mode, "--flush-every", "\(5 + schedule.next(60))", "--seed", "\(round)",
                "--limit", "\(actions)", "--power-cut-at", "\(cutAt)", "--synchronous", synchronous,
            ]
            let output = Pipe()
            child.standardOutput = output
            try child.run()
            var said = ChildReport()
            said.take(output.fileHandleForReading.readDataToEndOfFile())
            child.waitUntilExit()
            promised = max(promised, said.promised)
            let status = child.terminationStatus
            if child.terminationReason == .exit && status == PowerCutFileSystem.exitCode {
                cuts += 1
                try PowerCutFileSystem.restoreAfterCut(log: path)
            } else if child.terminationReason == .exit && status == 0 {
                PowerCutFileSystem.discardDurableCopies(log: path)
            } else {
                print("round \(round): the child failed (status \(status))")
                throw ExitCode(1)
            }

            let (report, last, failure) = try checker.check(promised: promised, said: said)
            if let cutTime = said.cutTime { losses.add(mode: mode, lost: said.lost(logEndsAt: last, end: cutTime)) }
            print("round \(round) (\(mode)): \(status == 0 ? "finished" : "cut at write \(cutAt)"); \(report); promised \(promised), logged \(last)\(failure.map { "  ← FAILED: \($0)" } ?? "")")
            guard failure == nil else { throw ExitCode(1) }
        }
        let seconds = Int((ContinuousClock.now - started).components.seconds)
        print("""
            \(rounds) rounds (\(durability)), \(cuts) power cuts, in \(seconds) s, failures 0: the log opened sound after each, \
            lost nothing promised, and replaying \(checker.verifiedEvents) events reproduced \(checker.verifiedSnapshots) snapshots. \
            \(losses.summary). Log: \(path)
            """)
    }
}
