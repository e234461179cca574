import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Rewind
import RewindLog

/// An app killed while its recorder holds back a snapshot whose encoding is not done: the child
/// process of the test that a crash then loses the snapshot, never an action.
struct HeldSnapshotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "held-snapshot",
        abstract: "(for tests) Record while a snapshot's encoding never ends, then SIGKILL the process.",
        discussion: """
            Records a counter with the recorder's defaults but a snapshot every --held actions; \
            encoding the state at that count never returns. Dispatches --held plus --after actions, \
            waits until the log holds all of them (read from another connection: a flush would wait \
            for the snapshot), prints `committed N`, and kills itself with SIGKILL. Exits 3 when \
            they are not all committed within --patience seconds.
            """,
        shouldDisplay: false
    )

    @Option var log: String
    @Option var held = 100
    @Option var after = 80
    @Option var patience = 60.0

    func run() throws {
        var configuration = RecorderConfiguration<HeldCounter, Int>()
        configuration.snapshotInterval = held
        configuration.snapshotBudget = .infinity
        let recorder = Recorder<HeldCounter, Int>(
            log: try EventLog(path: log), app: AppIdentity(id: "com.example.held"), configuration: configuration
        )
        let store = Store(
            initialState: HeldCounter(count: 0, neverEncodedAt: held),
            reducer: Reducer { state, amount in state.count += amount }, middleware: recorder.middleware
        )
        let total = held + after
        for _ in 0..<total { store.dispatch(1) }
        let reader = try EventLog(path: log, mode: .readOnly)
        let deadline = ContinuousClock.now + .milliseconds(Int(patience * 1_000))
        while try reader.sessions().reduce(0, { $0 + Int($1.eventCount) }) < total {
            guard ContinuousClock.now < deadline else {
                FileHandle.standardError.write(Data("not all \(total) actions committed within \(patience) s\n".utf8))
                throw ExitCode(3)
            }
            usleep(10_000)
        }
        // Written at once, unbuffered: the process is about to die.
        FileHandle.standardOutput.write(Data("committed \(total)\n".utf8))
        kill(getpid(), SIGKILL)
        throw ExitCode(3)
    }
}

/// A counter whose encoding at one count never ends, as a grown state's encoding outlasts
/// the events after it.
struct HeldCounter: Codable, Sendable {
    var count: Int
    var neverEncodedAt: Int

    func encode(to encoder: any Encoder) throws {
        if count == neverEncodedAt { while true { sleep(60) } }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(count, forKey: .count)
        try container.encode(neverEncodedAt, forKey: .neverEncodedAt)
    }
}
