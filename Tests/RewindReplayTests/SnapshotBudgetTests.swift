import Foundation
import GRDB
import Rewind
@testable import RewindLogCore
@testable import RewindSQLite
import RewindReplay
import RewindTestSupport
import Testing

/// Periodic snapshots under ``RecorderConfiguration/snapshotBudget``: bounded by the events
/// they save on a growing state, unchanged on a small one.
@Suite("Snapshot budget")
struct SnapshotBudgetTests {
    /// A state that grows with every action, as a chat, an order history or a cache does.
    struct Chat: Codable, Equatable, Sendable { var messages: [String] = [] }
    enum ChatAction: Codable, Equatable, Sendable { case post(String) }
    static let chat = Reducer<Chat, ChatAction> { state, action in
        switch action { case let .post(text): state.messages.append(text) }
    }

    struct Counter: Codable, Equatable, Sendable { var count = 0 }
    static let count = Reducer<Counter, ChatAction> { state, _ in state.count += 1 }

    /// Records `actions` posts and returns the log, the final state, and the bytes of periodic
    /// snapshots and of events (payloads plus a row's fixed part, as the budget counts them).
    static func recordChat(actions: Int, budget: Double, interval: Int = 100) throws -> (EventLog, Chat, snapshots: Int, events: Int, count: Int) {
        let folder = try TemporaryDirectory()
        let path = folder.file("chat.rewind")
        var configuration = RecorderConfiguration<Chat, ChatAction>()
        configuration.snapshotInterval = interval
        configuration.snapshotBudget = budget
        let recorder = Recorder<Chat, ChatAction>(log: try EventLog(path: path), app: AppIdentity(id: "chat"), configuration: configuration)
        let store = Store(initialState: Chat(), reducer: chat, middleware: recorder.middleware)
        for index in 0..<actions {
            store.dispatch(.post("message number \(index), with some words in it"))
            // An app's pace, not a burst: the writer keeps up, so each snapshot is weighed
            // before the next interval is counted.
            if index % 500 == 499 { try recorder.flush() }
        }
        try recorder.close()
        let log = try EventLog(path: path, mode: .readOnly)
        // Every periodic snapshot but the last, which the events after it have yet to pay for,
        // by its encoded size (the one the budget spaces them by; deflating stores less).
        let periodic = try log.snapshotIndex(session: 1).filter { $0.kind == "periodic" }
        let snapshots = try periodic.dropLast().reduce(0) { total, entry in
            total + (try log.snapshot(session: 1, atOrBefore: entry.seq)?.state.count ?? 0)
        }
        let events = try log.read { db in try Int.fetchOne(db, sql: "SELECT sum(length(payload) + 16) FROM events") ?? 0 }
        return (log, store.state, snapshots, events, periodic.count)
    }

    @Test("a growing state's snapshots take at most about the budget's share of the events' bytes, and the log still replays and seeks")
    func growingStateStaysWithinBudget() throws {
        let (log, final, snapshotBytes, eventBytes, count) = try Self.recordChat(actions: 20_000, budget: 0.5)
        // Each snapshot waits for events worth twice its size (estimated from their average).
        #expect(Double(snapshotBytes) <= 0.5 * 1.1 * Double(eventBytes), "\(snapshotBytes) bytes of snapshots for \(eventBytes) of events")
        #expect(count >= 5, "still snapshots to seek from: \(count)")
        let replayer = Replayer(log: log, reducer: Self.chat)
        let verified = try replayer.verify()
        #expect(verified.divergence == nil)
        let periodic = try log.snapshotIndex(session: 1).filter { $0.kind == "periodic" }.count
        #expect(verified.snapshotsCompared == periodic)
        #expect(try replayer.state(at: 20_000) == final)
        #expect(try replayer.state(at: 12_345).messages.count == 12_345)

        // Without a budget, the same session's snapshots cost many times its events.
        let (_, _, unbounded, sameEvents, everyInterval) = try Self.recordChat(actions: 20_000, budget: .infinity)
        #expect(everyInterval == 200)  // (the budget's count leaves out the last)
        #expect(Double(unbounded) > 10 * Double(sameEvents), "\(unbounded) bytes of snapshots for \(sameEvents) of events")
    }

    @Test("a small state still gets a snapshot every interval under the default budget")
    func smallStateEveryInterval() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("counter.rewind")
        var configuration = RecorderConfiguration<Counter, ChatAction>()
        configuration.snapshotInterval = 100
        #expect(configuration.snapshotBudget == 0.5)
        let recorder = Recorder<Counter, ChatAction>(log: try EventLog(path: path), app: AppIdentity(id: "counter"), configuration: configuration)
        let store = Store(initialState: Counter(), reducer: Self.count, middleware: recorder.middleware)
        for index in 0..<1_000 {
            store.dispatch(.post("\(index)"))
            // Let the writer weigh each batch, as an app's pace would.
            if index % 50 == 49 { try recorder.flush() }
        }
        try recorder.close()
        let log = try EventLog(path: path, mode: .readOnly)
        let seqs = try log.snapshotIndex(session: 1).map(\.seq)
        #expect(seqs == Array(stride(from: 0, through: 1_000, by: 100)))
    }

    @Test("in a burst the writer lags behind, a small state still gets a snapshot every interval (not one per writer lag)")
    func smallStateInABurst() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("burst.rewind")
        var configuration = RecorderConfiguration<Counter, ChatAction>()
        configuration.snapshotInterval = 100
        let recorder = Recorder<Counter, ChatAction>(log: try EventLog(path: path), app: AppIdentity(id: "counter"), configuration: configuration)
        let store = Store(initialState: Counter(), reducer: Self.count, middleware: recorder.middleware)
        for index in 0..<20_000 { store.dispatch(.post("\(index)")) }
        try recorder.close()
        let seqs = try EventLog(path: path, mode: .readOnly).snapshotIndex(session: 1).map(\.seq)
        #expect(seqs == Array(stride(from: 0, through: 20_000, by: 100)))
    }

    @Test("a budget of 0, less, or NaN takes no periodic snapshots; the initial one is always there", arguments: [0, -1, Double.nan])
    func noBudget(budget: Double) throws {
        let (log, final, snapshotBytes, _, count) = try Self.recordChat(actions: 1_000, budget: budget, interval: 10)
        #expect(count == 0 && snapshotBytes == 0)
        #expect(try log.snapshotIndex(session: 1).map(\.kind) == ["initial"])
        #expect(try Replayer(log: log, reducer: Self.chat).state(at: 1_000) == final)
    }
}
