import Foundation
import Rewind
import RewindExamples
import RewindLog
@testable import RewindPostgres
import RewindReplay
import RewindTestSupport
import Testing

/// One log of a store read in place as its file is read: `Replayer` over it gives the file's
/// states, and every read the protocol has gives the file's answers.
@Suite("PostgreSQL log read in place", .enabled(if: PostgresTestServer.enabled))
struct PostgresLogReaderTests {
    @Test("Replayer over a store's log gives the device file's state at every seq")
    func replayer() async throws {
        let folder = try TemporaryDirectory(), other = try TemporaryDirectory()
        let device = try await LogReaderAnswers.deviceLog(in: folder)
        let second = try await LogReaderAnswers.deviceLog(in: other)
        let identity = try #require(try device.identity())
        try await PostgresTestServer.withDatabase { location in
            let store = try await PostgresLog.open(location)
            defer { Task { await store.close() } }
            _ = try await store.push(device)

            do {
                let log = try await store.reader()
                #expect(log.path == location.description + (location.tls == .prefer ? "?" : "&") + "log=\(identity.uuidString.lowercased())")
                #expect(try log.identity() == identity)
                #expect(try log.sessions() == device.sessions())
                let fromFile = Replayer(log: device, reducer: Todo.reducer), fromStore = Replayer(log: log, reducer: Todo.reducer)
                let seqs = try #require(try device.seqRange())
                for seq in seqs {
                    #expect(try fromStore.state(at: seq) == fromFile.state(at: seq), "seq \(seq)")
                }
                for session in try device.sessions() {
                    #expect(try fromStore.finalState(session: session.id, fromStart: true) == fromFile.finalState(session: session.id, fromStart: true))
                    #expect(try fromStore.verify(session: session.id).divergence == nil)
                }
                #expect(throws: EventLogError.self) { try fromStore.state(at: seqs.upperBound + 1) }
            }

            _ = try await store.push(second)
            await #expect {
                _ = try await store.reader()
            } throws: { error in
                "\(error)".contains("several logs: name one with log=ID")
            }
            let unknown = UUID()
            await #expect {
                _ = try await store.reader(unknown)
            } throws: { error in
                "\(error)".contains("no sessions were pushed from log \(unknown.uuidString.lowercased())")
            }
            var named = location
            named.log = try second.identity()
            let byLocation = try await PostgresLog.open(named, mode: .readOnly)
            let log = try await byLocation.reader()
            #expect(try log.identity() == named.log, "the location's log= chooses")
            #expect(try PostgresPullTests.everything(log) == PostgresPullTests.everything(second))
            await byLocation.close()
        }
    }

    /// `body` with the device log (`LogReaderAnswers.deviceLog(in:)`) pushed into a new
    /// database, the store open for writing, and a reader of the log in it.
    static func withPushedDevice(
        _ body: (EventLog, PostgresLog, PostgresLogReader, PostgresLocation) async throws -> Void
    ) async throws {
        let folder = try TemporaryDirectory()
        let device = try await LogReaderAnswers.deviceLog(in: folder)
        try await PostgresTestServer.withDatabase { location in
            let store = try await PostgresLog.open(location)
            defer { Task { await store.close() } }
            _ = try await store.push(device)
            try await body(device, store, try await store.reader(), location)
        }
    }

    @Test("every read of the protocol answers on the store as on the device's file: sessions, pages and filters, raw walks, snapshots, shapes, statistics, activity, integrity, errors")
    func sameAnswers() async throws {
        try await Self.withPushedDevice { device, store, log, location in
            let (file, stored) = (try LogReaderAnswers.of(device), try LogReaderAnswers.of(log))
            #expect(file.count == stored.count)
            for (line, answer) in zip(file, stored) {
                #expect(answer.replacingOccurrences(of: log.path, with: device.path) == line)
            }
            #expect(try log.storedSymbols() == device.storedSymbols() && !(try log.storedSymbols()).isEmpty, "the binary codec's symbols travel")
            let stats = try log.statistics()
            #expect(stats.payloadBytes > 0 && stats.snapshotBytes > 0 && stats.bytesOnDisk > stats.payloadBytes + stats.snapshotBytes, "the store's sizes")

            // A push that adds a session is seen by the reader already open.
            let more = try EventLog(path: device.path)
            _ = try await recordSession(
                into: more, app: AppIdentity(id: "com.example.todo", version: "2.4"), initialState: TodoState(),
                reducer: Todo.reducer, effects: Todo.effects(environment: .simulated()), user: TodoUser(seed: 4), actions: 30
            )
            _ = try await store.push(more)
            #expect(try log.sessions().count == 4 && log.seqRange() == more.seqRange())
            #expect(try Replayer(log: log, reducer: Todo.reducer).finalState(session: 4) == Replayer(log: more, reducer: Todo.reducer).finalState(session: 4))
        }
    }

    @Test("a session of several pages replays in place as from its file; a walk stopped early and a connection cut between pages lose nothing")
    func pages() async throws {
        let folder = try TemporaryDirectory()
        let device = try EventLog(path: folder.file("long.rewind"))
        var configuration = RecorderConfiguration<TodoState, TodoAction>()
        configuration.codec = BinaryPayloadCodec()
        // Three pages and a part (the reader asks 4,096 events at a time).
        _ = try await recordSession(
            into: device, app: AppIdentity(id: "com.example.todo"), initialState: TodoState(), reducer: Todo.reducer,
            effects: Todo.effects(environment: .simulated()), user: TodoUser(seed: 9), actions: 13_000, configuration: configuration
        )
        let session = try #require(try device.sessions().first)
        let range = try #require(try device.seqRange())
        #expect(range.count > 3 * 4_096)
        try await PostgresTestServer.withDatabase { location in
            let store = try await PostgresLog.open(location)
            defer { Task { await store.close() } }
            _ = try await store.push(device)
            let log = try await store.reader()
            /// Each event's seq and payload, in order, from `reader`'s walk of the whole session.
            func walk(_ reader: any LogReader, stopAfter limit: Int = .max, during: (Int) -> Void = { _ in }) throws -> [(Int64, [UInt8])] {
                var seen: [(Int64, [UInt8])] = []
                _ = try reader.forEachRawEvent(session: session.id, from: range.lowerBound, through: range.upperBound) { event in
                    seen.append((event.seq, event.payload.map { Array($0) } ?? []))
                    during(seen.count)
                    return seen.count >= limit ? .stop : .continue
                }
                return seen
            }
            let fromFile = try walk(device)
            let inPlace = try walk(log)
            #expect(inPlace.count == fromFile.count && zip(inPlace, fromFile).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }, "every event, in order, bit for bit")
            #expect(try Replayer(log: log, reducer: Todo.reducer).finalState(session: session.id, fromStart: true)
                == Replayer(log: device, reducer: Todo.reducer).finalState(session: session.id, fromStart: true))

            // Stopped inside the first page, with the second asked for: the next read answers.
            #expect(try walk(log, stopAfter: 10).count == 10)
            #expect(try log.sessions() == device.sessions())

            // A reader's connection cut while it folds its first page: the pages after are
            // read on a new connection, and nothing is skipped or repeated.
            let own = try await PostgresLogReader.open(location)
            var terminated = 0
            let cut = try walk(own) { count in
                guard count == 100 else { return }
                let rows = try? store.connection.query(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
                    logger: PostgresLog.logger
                ).wait()
                terminated = rows?.rows.count ?? 0
            }
            #expect(terminated >= 1, "the reader's backend was ended")
            #expect(cut.count == fromFile.count && zip(cut, fromFile).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 })
            await own.close()
            await log.close()
        }
    }

    @Test("withheld events (no payload, a redaction) walk in place as in the file, across pages, with their neighbours' payloads")
    func withheldInPlace() async throws {
        let folder = try TemporaryDirectory()
        let device = try EventLog(path: folder.file("withheld.rewind"))
        let session = try device.beginSession(app: AppIdentity(id: "com.example.todo"), initialState: TodoState())
        // Every third event withheld; 4,096 a page, so the walk crosses a page.
        let records = (0..<5_000).map { (index: Int) -> EventRecord<TodoAction> in
            let action: TodoAction = index % 3 == 0 ? .item(.delete(id: UUID())) : .item(.rename(id: UUID(), title: "title \(index)"))
            return EventRecord(action, source: ActionSource(file: "Withheld.swift", function: "f", line: UInt(index % 7 + 1), column: 1))
        }
        let withholding = Redaction<Void, TodoAction> { action in
            if case .item(.delete) = action { .withhold } else { .keep }
        }
        try device.append(records, to: session, redaction: withholding)
        let (fromFile, inPlace) = try await Self.walks(of: session.id, in: device)
        let withheld = fromFile.filter { (line: String) -> Bool in line.contains(" - ") && !line.hasSuffix(" -") }
        #expect(fromFile.count == 5_000 && withheld.count == 1_667, "every third event has no payload, and says why")
        #expect(inPlace == fromFile)
    }

    /// Session `session`'s raw walk in `device`'s file, and in place once pushed into a fresh
    /// store: a line an event (seq, case, payload, redaction).
    static func walks(of session: Int64, in device: EventLog) async throws -> (file: [String], inPlace: [String]) {
        func walk(_ reader: any LogReader) throws -> [String] {
            var seen: [String] = []
            _ = try reader.forEachRawEvent(session: session, from: 1, through: .max) { event in
                seen.append("\(event.seq) \(event.actionCase) \(event.payload.map { Data($0).base64EncodedString() } ?? "-") \(event.redaction ?? "-")")
                return .continue
            }
            return seen
        }
        let file = try walk(device)
        return try await PostgresTestServer.withDatabase { location in
            let store = try await PostgresLog.open(location)
            defer { Task { await store.close() } }
            _ = try await store.push(device)
            let log = try await store.reader()
            defer { Task { await log.close() } }
            return (file, try walk(log))
        }
    }

    @Test("a replay of large payloads (40 KB each, pages sized by them) walks every event, in order, across its pages")
    func pagesSizedByPayloads() async throws {
        let folder = try TemporaryDirectory()
        let device = try EventLog(path: folder.file("large.rewind"))
        let session = try device.beginSession(app: AppIdentity(id: "com.example.todo"), initialState: TodoState())
        // 600 events of about 40 KB: 24 MB, a first page of 256 events, then pages of about 200.
        let records = (0..<600).map { (index: Int) -> EventRecord<TodoAction> in
            let title = "\(index) " + String(repeating: "x", count: 40_000)
            return EventRecord(TodoAction.item(.rename(id: UUID(), title: title)), source: ActionSource(file: "Large.swift", function: "f", line: 1, column: 1))
        }
        try device.append(records, to: session)
        #expect(600 * 40_000 > 2 * PostgresLogReader.replayPages.bytes && PostgresLogReader.replayPages.bytes / 40_000 < 256)
        let (fromFile, inPlace) = try await Self.walks(of: session.id, in: device)
        #expect(fromFile.count == 600)
        #expect(inPlace == fromFile)
    }

    @Test("a page past the server's 1 GB limit on one value (4,096 events of 270 KB after small ones) is asked for again smaller, and every event is walked")
    func pagePastValueLimit() async throws {
        let folder = try TemporaryDirectory()
        let device = try EventLog(path: folder.file("jump.rewind"))
        let session = try device.beginSession(app: AppIdentity(id: "com.example.todo"), initialState: TodoState())
        // A first page of small payloads: the next page is sized from them, at the most events.
        let small = PostgresLogReader.replayPages.first
        let records = (0..<small).map { (index: Int) -> EventRecord<TodoAction> in
            EventRecord(TodoAction.item(.rename(id: UUID(), title: "\(index)")), source: ActionSource(file: "Jump.swift", function: "f", line: 1, column: 1))
        }
        try device.append(records, to: session)
        let large = 270_000, count = PostgresLogReader.replayPages.maximum + 100
        #expect(PostgresLogReader.replayPages.maximum * large > 1 << 30, "the page sized from the small payloads is past the limit")
        try await PostgresTestServer.withDatabase { location in
            let store = try await PostgresLog.open(location)
            defer { Task { await store.close() } }
            _ = try await store.push(device)
            // The large events, made by the server after the pushed ones: `x`s ending in their
            // number. They compress (lz4, quick) in its storage, so the store stays small; a page
            // of them is built whole in memory.
            _ = try await store.rows("SET default_toast_compression = lz4")
            _ = try await store.rows("""
                INSERT INTO rewind.events (session_id, seq, origin_seq, time, action_id, payload, source_id)
                SELECT e.session_id, e.seq + g, e.origin_seq + g, e.time, e.action_id,
                       big.x || convert_to(lpad(g::text, 10, 'x'), 'UTF8'), e.source_id
                FROM rewind.events AS e, generate_series(1, \(count)) AS g,
                     (SELECT convert_to(repeat('x', \(large - 10)::int), 'UTF8') AS x) AS big
                WHERE e.origin_seq = \(small)
                """)
            let log = try await store.reader()
            defer { Task { await log.close() } }
            var seqs: [Int64] = [], sizes: [Int] = [], wrong = 0
            _ = try log.forEachRawEvent(session: session.id, from: 1, through: .max) { event in
                seqs.append(event.seq)
                let payload = event.payload.map { Data($0) } ?? Data()
                sizes.append(payload.count)
                if event.seq > Int64(small), String(String(decoding: payload.suffix(8), as: UTF8.self).drop { $0 == "x" }) != String(event.seq - Int64(small)) {
                    wrong += 1
                }
                return .continue
            }
            #expect(seqs == Array(1...Int64(small + count)), "every event, in order")
            #expect(sizes.dropFirst(small).allSatisfy { $0 == large } && sizes.prefix(small).allSatisfy { $0 < 100 })
            #expect(wrong == 0, "each large event's own payload")
        }
    }

    @Test("a reader outlives a server restart (it connects again); a server that is down is a clean error naming the store, never a hang")
    func serverRestart() async throws {
        let server = try PrivatePostgresServer.start()
        defer { server.stop() }
        let folder = try TemporaryDirectory()
        let device = try await LogReaderAnswers.deviceLog(in: folder)
        let store = try await PostgresLog.open(server.location)
        _ = try await store.push(device)
        await store.close()

        let log = try await PostgresLogReader.open(server.location)
        let replayer = Replayer(log: log, reducer: Todo.reducer), fromFile = Replayer(log: device, reducer: Todo.reducer)
        let last = try #require(try device.seqRange()).upperBound
        #expect(try replayer.state(at: last) == fromFile.state(at: last))

        #expect(server.restart())
        #expect(try replayer.state(at: last - 3) == fromFile.state(at: last - 3), "read again after the restart, on a new connection")
        #expect(try log.sessions() == device.sessions())

        server.stop()
        let started = ContinuousClock.now
        #expect {
            _ = try log.sessions()
        } throws: { error in
            let text = "\(error)"
            return text.contains(log.path) && text.contains("connection refused") && !text.contains(server.location.password ?? "no password")
        }
        #expect(ContinuousClock.now - started < .seconds(30), "refused, not left to hang")

        #expect(server.resume())
        #expect(try log.sessions() == device.sessions(), "and reads once the server is back")
        await log.close()
    }

    @Test("an install named with quotes, backslashes and dollar-quote tags reads its own sessions, and only them")
    func hostileInstall() async throws {
        try await PostgresTestServer.withDatabase { location in
            let names = ["o'brien \\ 'x'; DROP TABLE rewind.events; --", "$rewind$", "ends with $rewind", "rewind$rewindx$"]
            var lives: [String: TodoState] = [:]
            for (index, name) in names.enumerated() {
                let live = try await recordSession(
                    into: try await RecordingDestination.postgres(location, install: name), app: AppIdentity(id: "com.example.todo"),
                    initialState: TodoState(), reducer: Todo.reducer, effects: Todo.effects(environment: .simulated()),
                    user: TodoUser(seed: UInt64(index + 1)), actions: 20 + index
                )
                lives[name] = live.store.state
            }
            for name in names {
                var installed = location
                installed.install = name
                let log = try await PostgresLogReader.open(installed)
                let sessions = try log.sessions()
                #expect(sessions.count == 1, "\(name)")
                let id = try #require(sessions.first).id
                #expect(try Replayer(log: log, reducer: Todo.reducer).finalState(session: id) == lives[name], "\(name)")
                #expect(try log.statistics().sessions == 1 && log.checkIntegrity().isSound, "\(name)")
                await log.close()
            }
            #expect(try await PostgresTestServer.strings(location, "SELECT count(*)::text FROM rewind.events") != ["0"], "nothing was dropped")
        }
    }

    @Test("a damaged store: check names what is wrong as for a file, and an event without its case is an error naming it, never a gap in the page")
    func damagedStore() async throws {
        try await Self.withPushedDevice { device, store, log, location in
            #expect(try log.checkIntegrity().isSound)

            // Session 3 loses its initial snapshot, session 1's count goes wrong, one event of
            // session 1 (device seq 10) loses its case, and device seq 20 goes missing.
            _ = try await PostgresTestServer.strings(location, """
                DELETE FROM rewind.snapshots WHERE kind = 'initial' AND session_id = (SELECT id FROM rewind.sessions WHERE origin_session = 3)
                """)
            _ = try await PostgresTestServer.strings(location, "UPDATE rewind.sessions SET event_count = event_count + 1 WHERE origin_session = 1")
            _ = try await PostgresTestServer.strings(location, "UPDATE rewind.events SET action_id = 999999 WHERE origin_seq = 10")
            _ = try await PostgresTestServer.strings(location, "DELETE FROM rewind.events WHERE origin_seq = 20")
            let report = try log.checkIntegrity()
            #expect(!report.isSound)
            #expect(report.sessionsWithoutSnapshot == [3])
            #expect(report.sessionsWithWrongBounds == [1])
            #expect(report.gaps == [20...20])
            #expect(report.eventCount == 194)

            #expect {
                _ = try log.event(at: 10)
            } throws: { error in
                "\(error)".contains("event 10 names a case or source") && "\(error)".contains(log.path)
            }
            var walked: [String] = []
            _ = try log.forEachRawEvent(session: 1, from: 9, through: 11) { event in walked.append(event.actionCase); return .continue }
            #expect(walked.count == 3 && walked[1] == "action #999999", "the replay path needs no case: \(walked)")
            #expect(try Replayer(log: log, reducer: Todo.reducer).state(at: 12) == Replayer(log: device, reducer: Todo.reducer).state(at: 12))
        }
    }

    @Test("log= in a URL is read, shown in the location's description, and refused when not a UUID")
    func logParameter() throws {
        let id = UUID()
        let location = try PostgresLocation(parsing: "postgres://u:secret@db:5433/fleet?sslmode=require&log=\(id.uuidString)", environment: [:])
        #expect(location.log == id && location.tls == .require)
        #expect(location.description == "postgres://u@db:5433/fleet?sslmode=require&log=\(id.uuidString.lowercased())")
        for bad in ["log=", "log=abc", "log=\(id.uuidString)x"] {
            #expect {
                _ = try PostgresLocation(parsing: "postgres://u:secret@db/fleet?\(bad)", environment: [:])
            } throws: { error in
                "\(error)".contains("is not a log's identity") && !"\(error)".contains("secret")
            }
        }
        #expect(try PostgresLocation(parsing: "postgres://db/fleet", environment: [:]).log == nil)
        let install = try PostgresLocation(parsing: "postgres://db/fleet?install=api-1", environment: [:])
        #expect(install.install == "api-1" && install.log == nil && install.description.hasSuffix("/fleet?install=api-1"))
        for (bad, message) in [("install=", "install= needs an install's id"), ("log=\(id.uuidString)&install=x", "log= and install= each name what to read")] {
            #expect {
                _ = try PostgresLocation(parsing: "postgres://u:secret@db/fleet?\(bad)", environment: [:])
            } throws: { error in
                "\(error)".contains(message) && !"\(error)".contains("secret")
            }
        }
    }
}
