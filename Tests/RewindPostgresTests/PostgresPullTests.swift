import Foundation
import Rewind
import RewindExamples
import RewindLog
@testable import RewindPostgres
import RewindTestSupport
import Testing

/// Pulling sessions back from a store: the file is the device's log again — same identity,
/// numbers, bytes — or nothing at all.
@Suite("PostgreSQL pull", .enabled(if: PostgresTestServer.enabled))
struct PostgresPullTests {
    /// Everything a log holds, as its portable export's lines without the export time: two
    /// logs with equal lines have the same identity, symbols, sessions (with shapes and
    /// encryption), snapshots, events (payloads, sources, redactions) and gaps, byte for byte.
    static func everything(_ log: any LogReader, session: Int64? = nil) throws -> [String] {
        let folder = try TemporaryDirectory()
        let url = URL(fileURLWithPath: folder.file("export.jsonl"))
        try log.export(to: url, filter: EventFilter(session: session))
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
        return try lines.map { line in
            guard line.contains(#""type":"header""#) else { return line }
            var header = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            header["exportedAt"] = nil
            return String(decoding: try JSONSerialization.data(withJSONObject: header, options: .sortedKeys), as: UTF8.self)
        }
    }

    @Test("a pushed log pulled back is the same log: identity, numbers, symbols, snapshots and every byte; pushing it again adds nothing")
    func roundTrip() async throws {
        let folder = try TemporaryDirectory()
        let log = try await LogReaderAnswers.deviceLog(in: folder)
        try await PostgresTestServer.withDatabase { location in
            let store = try await PostgresLog.open(location)
            defer { Task { await store.close() } }
            _ = try await store.push(log, batchSize: 40)
            let identity = try #require(try log.identity())
            let progress = Recorded<PostgresLog.PullProgress>()
            let report = try await store.pull(.log(identity), to: folder.file("pulled.rewind"), progress: progress.append)
            #expect(report.sessions == 3 && report.events == 195 && report.logID == identity)
            #expect(progress.all.last == .init(sessionsDone: 3, sessions: 3, events: 195, eventsTotal: 195))
            let pulled = try EventLog(path: folder.file("pulled.rewind"), mode: .readOnly)
            #expect(try pulled.identity() == identity)
            #expect(try Self.everything(pulled) == Self.everything(log))
            #expect(try pulled.checkIntegrity().isSound)

            let again = try await store.push(try EventLog(path: folder.file("pulled.rewind")))
            #expect(again.newSessions == 0 && again.events == 0 && again.alreadyThere == 195, "the pulled file is the same log to the store")
        }
    }

    @Test("one session, by its number in the store or its UUID, comes back alone with the log's numbers")
    func oneSession() async throws {
        let folder = try TemporaryDirectory()
        let log = try await LogReaderAnswers.deviceLog(in: folder)
        try await PostgresTestServer.withDatabase { location in
            let store = try await PostgresLog.open(location)
            defer { Task { await store.close() } }
            _ = try await store.push(log)
            let rows = try await PostgresTestServer.strings(location, "SELECT id || ' ' || uuid FROM rewind.sessions WHERE origin_session = 3")
            let parts = try #require(rows.first).split(separator: " ")
            let number = try #require(Int64(String(parts[0]))), uuid = try #require(UUID(uuidString: String(parts[1])))
            for (name, selection) in [("number", PostgresLog.PullSelection.sessions(numbers: [number], uuids: [])), ("uuid", .sessions(numbers: [], uuids: [uuid]))] {
                let path = folder.file("by-\(name).rewind")
                let report = try await store.pull(selection, to: path)
                #expect(report.sessions == 1 && report.events == 75)
                let pulled = try EventLog(path: path, mode: .readOnly)
                #expect(try pulled.sessions().map(\.id) == [3], "the session keeps its number in the log")
                #expect(try Self.everything(pulled) == Self.everything(log, session: 3))
            }
            let install = try await store.pull(.install(try #require(try log.identity()).uuidString.lowercased()), to: folder.file("install.rewind"))
            #expect(install.sessions == 3, "an install's sessions: by default its log's identity")
        }
    }

    @Test("an encrypted session comes back sealed, and opens with the same key at the same seqs")
    func encrypted() async throws {
        let folder = try TemporaryDirectory()
        let key = try LogKey(id: "device-key", bytes: Data((0..<32).map { UInt8($0 * 7 % 256) }))
        let log = try EventLog(path: folder.file("sealed.rewind"), keys: LogKeys(current: key))
        _ = try await recordSession(
            into: log, app: AppIdentity(id: "com.example.todo"), initialState: TodoState(), reducer: Todo.reducer,
            effects: Todo.effects(environment: .simulated()), user: TodoUser(seed: 9), actions: 60
        )
        try await PostgresTestServer.withDatabase { location in
            let store = try await PostgresLog.open(location)
            defer { Task { await store.close() } }
            _ = try await store.push(log)
            _ = try await store.pull(.log(try #require(try log.identity())), to: folder.file("pulled.rewind"))
            let pulled = try EventLog(path: folder.file("pulled.rewind"), mode: .readOnly, keys: LogKeys(others: [key]))
            #expect(try Self.everything(pulled) == Self.everything(log))
            var cursor = pulled.events()
            var decoded = 0
            while let event = try cursor.next() {
                _ = try pulled.decodeAction(of: event, as: TodoAction.self)
                decoded += 1
            }
            #expect(decoded == 60)
            let integrity = try pulled.checkIntegrity()
            #expect(integrity.isSound && integrity.encryptedSessionsUnchecked.isEmpty, "every sealed value authenticates at its pulled seq")
            let locked = try EventLog(path: folder.file("pulled.rewind"), mode: .readOnly)
            let event = try locked.event(at: try #require(try locked.seqRange()).lowerBound)
            #expect(throws: EventLogError.self) { try locked.decodeAction(of: event, as: TodoAction.self) }
        }
    }

    @Test("recorded gaps come back where they were, naming the session recording resumed in")
    func gaps() async throws {
        let (folder, path) = try logWithRecordedGap()
        let log = try EventLog(path: path)
        try await PostgresTestServer.withDatabase { location in
            let store = try await PostgresLog.open(location)
            defer { Task { await store.close() } }
            _ = try await store.push(log)
            let report = try await store.pull(.log(try #require(try log.identity())), to: folder.file("pulled.rewind"))
            #expect(report.gaps == 1)
            let pulled = try EventLog(path: folder.file("pulled.rewind"), mode: .readOnly)
            #expect(try pulled.gaps() == log.gaps())
            #expect(try Self.everything(pulled) == Self.everything(log))
        }
    }

    @Test("bad pulls are refused with a clear error, and leave no file behind")
    func refusals() async throws {
        let folder = try TemporaryDirectory()
        let log = try await LogReaderAnswers.deviceLog(in: folder)
        let other = try EventLog(path: folder.file("other.rewind"))
        _ = try await recordSession(
            into: other, app: AppIdentity(id: "com.example.todo"), initialState: TodoState(), reducer: Todo.reducer,
            effects: Todo.effects(environment: .simulated()), user: TodoUser(seed: 4), actions: 10
        )
        try await PostgresTestServer.withDatabase { location in
            let store = try await PostgresLog.open(location)
            defer { Task { await store.close() } }
            _ = try await store.push(log)
            _ = try await store.push(other)
            let existing = folder.file("device.rewind")
            let cases: [(PostgresLog.PullSelection, String, String)] = [
                (.sessions(numbers: [1], uuids: []), existing, "the file exists already"),
                (.sessions(numbers: [1], uuids: []), folder.file("no/such/folder/x.rewind"), "does not exist or cannot be written"),
                (.sessions(numbers: [999], uuids: []), folder.file("a.rewind"), "no session in the store matches sessions 999"),
                (.sessions(numbers: [1, 999], uuids: []), folder.file("b.rewind"), "there is no session 999"),
                (.sessions(numbers: [1], uuids: [UUID()]), folder.file("c.rewind"), "no session in the store has the UUID"),
                (.sessions(numbers: [Int64.max, .min, 0, -1], uuids: []), folder.file("d.rewind"), "no session in the store matches"),
                (.log(UUID()), folder.file("e.rewind"), "no session in the store matches log"),
                (.install("nobody"), folder.file("f.rewind"), "no session in the store matches install nobody"),
                (.sessions(numbers: [1, 4], uuids: []), folder.file("g.rewind"), "the sessions come from 2 logs"),
            ]
            for (selection, path, message) in cases {
                let error = await #expect(throws: EventLogError.self, "\(selection)") { try await store.pull(selection, to: path) }
                let text = error.map(String.init(describing:)) ?? ""
                #expect(text.contains(message), "\(selection): \(text)")
                if path != existing { #expect(!FileManager.default.fileExists(atPath: path), "\(selection) left \(path)") }
            }
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains(".pull-") }
            #expect(leftovers.isEmpty, "no export left behind: \(leftovers)")
        }
    }
}
