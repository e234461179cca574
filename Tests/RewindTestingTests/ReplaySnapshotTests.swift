import Foundation
import Rewind
import RewindExamples
import RewindLog
import RewindTestSupport
import RewindTesting
import SnapshotTesting
import Testing

// References live in __Snapshots__/ReplaySnapshotTests/ and are committed; CI runs with
// SNAPSHOT_TESTING_RECORD=never, so a missing or different reference fails there.
@Suite("Replayed state against reference snapshots")
struct ReplaySnapshotTests {
    @Test("the shop's seeded session replays to the committed states")
    func shopSeededSession() async throws {
        let folder = try TemporaryDirectory()
        let session = try await recordSession(
            into: try EventLog(path: folder.file("shop.rewind")), app: AppIdentity(id: "com.example.shop"),
            initialState: ShopState(), reducer: Shop.reducer, effects: Shop.effects(environment: .simulated),
            user: Shopper(seed: 7), actions: 80
        )
        #expect(session.reduced.count == 80)
        assertReplay(try EventLog(path: folder.file("shop.rewind"), mode: .readOnly), reducer: Shop.reducer, at: .seqs([12, 40, 80]), named: "shop-seed7")
    }

    @Test("the todo app's seeded session replays to the committed states at every snapshot")
    func todoSeededSession() async throws {
        let folder = try TemporaryDirectory()
        var configuration = RecorderConfiguration<TodoState, TodoAction>()
        configuration.snapshotInterval = 50
        _ = try await recordSession(
            into: try EventLog(path: folder.file("todo.rewind")), app: AppIdentity(id: "com.example.todo"),
            initialState: TodoState(), reducer: Todo.reducer, effects: Todo.effects(environment: .simulated()),
            user: TodoUser(seed: 7), actions: 150, configuration: configuration
        )
        assertReplay(try EventLog(path: folder.file("todo.rewind"), mode: .readOnly), reducer: Todo.reducer, at: .everySnapshot, named: "todo-seed7")
    }

    @Test("a recorded bug's timeline, as swift-snapshot-testing strategies")
    func timelineStrategy() throws {
        let fixture = try fixtureLog("__Fixtures__/shop-negative-total.jsonl")
        assertSnapshot(of: ReplayedLog(fixture, reducer: Shop.reducer), as: .timeline, named: "timeline")
        assertSnapshot(of: ReplayedLog(fixture, reducer: Shop.reducer), as: .finalStates, named: "final-states")
    }

    @Test("a deliberately wrong reference fails at the caller's line with a readable diff")
    func wrongReferenceFailsWithDiff() throws {
        // __Snapshots__/ReplaySnapshotTests/wrongReferenceFailsWithDiff.wrong-seq-4.txt holds the
        // state after the bug, edited to claim the total is 0.00.
        let fixture = try fixtureLog("__Fixtures__/shop-negative-total.jsonl")
        let line = #line + 3
        withKnownIssue {
            withSnapshotTesting(record: .never) {
                assertReplay(fixture, reducer: Shop.reducer, at: .seqs([4]), named: "wrong")
            }
        } matching: { issue in
            let message = issue.comments.map(\.rawValue).joined(separator: "\n")
            return issue.sourceLocation?.line == line
                && issue.sourceLocation?.fileName == "ReplaySnapshotTests.swift"
                && message.contains("Snapshot \"wrong-seq-4\" does not match reference")
                && message.contains("−    total: 0,")
                && message.contains("+    total: -1000,")
        }
    }

    @Test("with recording off, a missing reference fails instead of being written")
    func missingReferenceWithRecordingOff() throws {
        let fixture = try fixtureLog("__Fixtures__/shop-negative-total.jsonl")
        withKnownIssue {
            assertReplay(fixture, reducer: Shop.reducer, at: .seqs([2]), named: "never-recorded", record: .never)
        } matching: { issue in
            issue.comments.map(\.rawValue).joined().contains("No reference was found on disk")
        }
        let reference = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("__Snapshots__/ReplaySnapshotTests/missingReferenceWithRecordingOff.never-recorded-seq-2.txt")
        #expect(!FileManager.default.fileExists(atPath: reference.path))
    }
}
