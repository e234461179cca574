import ArgumentParser
import Foundation
import Rewind
import RewindExamples
import RewindLog

/// `rewind-stress`: crash-safety checks for the recorder.
///
/// `record` records at full speed until it is killed, printing `flushed <seq>` after each
/// flush (and, with synchronous durability, after every dispatch); `kill-loop` runs `record` as
/// a child over and over, kills it with SIGKILL at random moments, and checks, replays and
/// verifies the log after every kill.
@main
struct RewindStress: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rewind-stress",
        abstract: "Crash-safety checks for the Rewind recorder.",
        subcommands: [
            RecordCommand.self, KillLoopCommand.self, PowerLossCommand.self, ConcurrentCommand.self,
            TaggedWriterCommand.self, TaggedReaderCommand.self, KeyedWriterCommand.self, FuzzCommand.self,
            SharedLogCommand.self, SharedWriterCommand.self, SharedReaderCommand.self, SharedExporterCommand.self,
            TapOverlapCommand.self, CrashCommand.self, HeldSnapshotCommand.self, OutboxFillCommand.self, FieldAppCommand.self,
        ] + storeCommands
    )

    #if PostgreSQL
    static let storeCommands: [any ParsableCommand.Type] = [StoreSoakCommand.self]
    #else
    static let storeCommands: [any ParsableCommand.Type] = []
    #endif
}

/// Records the shop app's generated actions at full speed into a log until killed.
struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record at full speed until killed, printing 'flushed <seq>' after each flush."
    )

    @Option(help: "The log to record into (created, or continued).")
    var log: String

    @Option(help: "buffered or synchronous.")
    var durability = "buffered"

    @Option(help: "Buffered mode's commit window in milliseconds.")
    var maxDelayMs = 50

    @Option(help: "Flush (and report) after every this many actions.")
    var flushEvery = 500

    @Option(help: "Stop after this many actions (0: run until killed).")
    var limit = 0

    @Option(help: "Seed of the generated shop session.")
    var seed: UInt64 = 1

    @Option(help: "Simulate a power cut before this write to the log or its -wal (see power-loss).")
    var powerCutAt: Int?

    @Option(help: "SQLite's synchronous setting to record with: full (the log's), or normal, which the power-loss run must catch.")
    var synchronous = "full"

    func validate() throws {
        guard ["buffered", "synchronous"].contains(durability) else { throw ValidationError("--durability is buffered or synchronous") }
        guard flushEvery > 0 else { throw ValidationError("--flush-every must be positive") }
        guard ["full", "normal"].contains(synchronous) else { throw ValidationError("--synchronous is full or normal") }
    }

    func run() throws {
        let actions = SessionSource.shopActions(seed: seed)
        if let powerCutAt { PowerCutFileSystem.install(log: log, cutAt: powerCutAt) }
        let eventLog = try EventLog(path: log)
        if synchronous != "full" { try eventLog.weakenSynchronousForTesting(synchronous) }
        var configuration = RecorderConfiguration<ShopState, ShopAction>()
        configuration.durability = durability == "synchronous" ? .synchronous : .buffered(maxDelay: .milliseconds(maxDelayMs))
        // Often, so that verify compares many snapshots with the replayed state every round.
        configuration.snapshotInterval = 20
        // A synchronous dispatch returns after its commit, or once the store counts as stuck
        // (the stall limit, 2 s by default) with its action still buffered: the `flushed` line
        // below is a promise only in the first case. On a loaded machine (CI, the whole test
        // suite beside a power-loss run) a round reported 180 "promised" actions lost at the
        // cut; with a 1 ms limit standing in for a starved writer, `power-loss --durability
        // synchronous --seed 8191` fails that way in its second round. Stalls have tests of
        // their own; here the writer is never counted stuck.
        configuration.stallLimit = .seconds(3_600)
        let recorder = Recorder<ShopState, ShopAction>(log: eventLog, app: AppIdentity(id: "com.example.shop"), configuration: configuration)
        let initial = try eventLog.restoredState(app: recorder.app, reducer: Shop.reducer) ?? ShopState()
        let store = Store(initialState: initial, reducer: Shop.reducer, middleware: recorder.middleware)
        // One writer, one dispatching thread: the n-th action dispatched here gets seq base + n.
        let base = try eventLog.seqRange()?.upperBound ?? 0
        // The parent checks every promised action against this seed's script from here.
        FileHandle.standardOutput.write(Data("base \(base) \(seed)\n".utf8))
        let synchronous = durability == "synchronous"
        var count = 0
        var lastMark: UInt64 = 0
        while limit == 0 || count < limit {
            let dispatched = actions[count % actions.count]
            store.dispatch(dispatched.action, from: dispatched.source)
            count += 1
            // When what was dispatched, at most once a millisecond: the parent measures how old
            // the actions a crash lost were.
            let now = ChildReport.now
            if now - lastMark >= 1_000_000 {
                lastMark = now
                FileHandle.standardOutput.write(Data("dispatched \(base + Int64(count)) \(now)\n".utf8))
            }
            if synchronous {
                // The store is idle, so dispatch returned after the commit: promise it at once.
                FileHandle.standardOutput.write(Data("flushed \(base + Int64(count))\n".utf8))
            } else if count % flushEvery == 0 {
                try recorder.flush()
                // What was dispatched before the flush returned, not what the log says it holds:
                // a flush that returned early must fail the round, not lower the promise.
                // Unbuffered, so the parent sees the line before it decides to kill.
                FileHandle.standardOutput.write(Data("flushed \(base + Int64(count))\n".utf8))
            }
        }
        try recorder.close()
    }
}

/// Generates the actions the stress runs record: an app's generated session of 5,000 actions.
enum SessionSource {
    static func shopActions(seed: UInt64) -> [DispatchedAction<ShopAction>] {
        generated { await Shop.sessionActions(count: 5_000, seed: seed) }
    }

    static func todoActions(seed: UInt64) -> [DispatchedAction<TodoAction>] {
        generated { await Todo.sessionActions(count: 5_000, seed: seed) }
    }

    /// What `make` generates, waited for from synchronous code.
    private static func generated<Action: Sendable>(_ make: @escaping @Sendable () async -> [DispatchedAction<Action>]) -> [DispatchedAction<Action>] {
        let result = UnsafeSendableBox<[DispatchedAction<Action>]>()
        let done = DispatchSemaphore(value: 0)
        Task {
            result.value = await make()
            done.signal()
        }
        done.wait()
        return result.value ?? []
    }
}

/// Carries a value out of a task into synchronous code that waits on a semaphore for it.
final class UnsafeSendableBox<Value>: @unchecked Sendable {
    // `@unchecked`: written once by the task before `signal()`, read once after `wait()`; the
    // semaphore orders the two.
    var value: Value?
}
