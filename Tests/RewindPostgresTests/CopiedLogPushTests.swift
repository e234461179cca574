import Foundation
import Rewind
import RewindExamples
@testable import RewindLogCore
@testable import RewindSQLite
@testable import RewindPostgres
import RewindReplay
import RewindTestSupport
import Testing

/// Copies of one log pushed into one store: never merged into the same sessions.
@Suite("PostgreSQL push of copied logs", .enabled(if: PostgresTestServer.enabled))
struct CopiedLogPushTests {
    static let app = AppIdentity(id: "com.example.todo")

    /// Records `actions` todo actions into `log`, in a session of their own.
    static func record(_ actions: Int, seed: UInt64, into log: EventLog) async throws {
        _ = try await recordSession(
            into: log, app: app, initialState: TodoState(), reducer: Todo.reducer, effects: Todo.effects(environment: .simulated()),
            user: TodoUser(seed: seed), actions: actions
        )
    }

    /// Each session of a log with its events (seq, case and payload), in order: what two reads
    /// of one log agree on.
    static func contents(of log: any LogReader) throws -> [String] {
        try log.sessions().map { session in
            var cursor = log.events(EventFilter(session: session.id), pageSize: 500)
            let events = try cursor.collect().map { "\($0.seq)=\($0.actionCase)=\(PostgresPushTests.md5($0.payload ?? Data()))" }
            return "\(session.id):\(session.eventCount):" + events.joined(separator: ",")
        }
    }

    @Test("a log copied by export and import, both recorded into and pushed: two logs in the store, each reading back as its file")
    func divergedCopies() async throws {
        let folder = try TemporaryDirectory()
        let original = try EventLog(path: folder.file("a.rewind"))
        try await Self.record(500, seed: 1, into: original)
        let export = URL(fileURLWithPath: folder.file("a.jsonl"))
        try original.export(to: export)
        let copy = try EventLog.importLog(from: export, to: folder.file("b.rewind"))
        #expect(try copy.identity() == original.identity(), "an import is the same log until it is recorded into")
        try await Self.record(300, seed: 2, into: original)
        try await Self.record(400, seed: 3, into: copy)
        let (a, b) = (try #require(try original.identity()), try #require(try copy.identity()))
        #expect(a != b, "recorded into, the copy is a log of its own")

        try await PostgresTestServer.withDatabase { location in
            let store = try await PostgresLog.open(location)
            _ = try await store.push(original)
            _ = try await store.push(copy)
            await store.close()
            // Every event of each file once: the copy's shared history under its own identity too.
            let total = try [original, copy].reduce(Int64(0)) { sum, log in try sum + log.sessions().reduce(0) { $0 + $1.eventCount } }
            #expect(try await PostgresTestServer.strings(location, "SELECT count(*)::text FROM rewind.events") == ["\(total)"])
            for (file, identity) in [(original, a), (copy, b)] {
                var one = location
                one.log = identity
                let reader = try await PostgresLogReader.open(one)
                #expect(try Self.contents(of: reader) == Self.contents(of: file))
                #expect(try Replayer(log: reader, reducer: Todo.reducer).finalState(session: 2) == Replayer(log: file, reducer: Todo.reducer).finalState(session: 2))
                await reader.close()
            }
        }
    }

    @Test("a log restored in place from an older backup and recorded into is refused, naming the session; the store keeps what it had")
    func restoredBackup() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("device.rewind")
        var log: EventLog? = try EventLog(path: path)
        try await Self.record(50, seed: 1, into: log!)
        try log!.close()
        let backup = try Data(contentsOf: URL(fileURLWithPath: path))
        log = try EventLog(path: path)
        try await Self.record(30, seed: 2, into: log!)

        try await PostgresTestServer.withDatabase { location in
            let store = try await PostgresLog.open(location)
            defer { Task { await store.close() } }
            _ = try await store.push(log!)
            let stored = try await PostgresTestServer.strings(location, "SELECT count(*)::text FROM rewind.events").first ?? ""
            try log!.close()
            try Self.restore(backup, to: path)
            log = try EventLog(path: path)
            try await Self.record(20, seed: 3, into: log!)
            #expect(try log!.sessions().map(\.id) == [1, 2], "the restored log numbers its new session as the lost one was")
            await #expect {
                _ = try await store.push(log!)
            } throws: { error in
                "\(error)".contains("diverged") && "\(error)".contains("session 2 from this log began at")
            }
            #expect(try await PostgresTestServer.strings(location, "SELECT count(*)::text FROM rewind.events") == ["\(stored)"], "nothing of it was pushed")
        }
    }

    @Test("a session continued differently in a restored log: the push is refused naming the first event that differs")
    func divergedEvents() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("device.rewind")
        var log: EventLog? = try EventLog(path: path)
        let session = try log!.beginSession(app: Self.app, initialState: TodoState())
        func append(_ titles: [String], to log: EventLog) throws {
            try log.append(titles.map { EventRecord(TodoAction.list(.rename(id: UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)), title: $0)), source: ActionSource(), time: Date(timeIntervalSince1970: 1_000)) }, to: session)
        }
        try append(["a", "b"], to: log!)
        try log!.close()
        let backup = try Data(contentsOf: URL(fileURLWithPath: path))
        log = try EventLog(path: path)
        try append(["c", "d"], to: log!)

        try await PostgresTestServer.withDatabase { location in
            let store = try await PostgresLog.open(location)
            defer { Task { await store.close() } }
            _ = try await store.push(log!)
            try log!.close()
            try Self.restore(backup, to: path)
            log = try EventLog(path: path)
            try append(["c", "x", "y"], to: log!)
            await #expect {
                _ = try await store.push(log!)
            } throws: { error in
                "\(error)".contains("event 4 differs in its payload")
            }
            #expect(try await PostgresTestServer.strings(location, "SELECT count(*)::text FROM rewind.events") == ["4"])
        }
    }

    /// Writes `backup` over the file at `path` in place (the same inode, as `cp backup path`
    /// does), with no write-ahead log beside it.
    static func restore(_ backup: Data, to path: String) throws {
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: backup)
        try handle.close()
    }
}
