import Foundation
import Rewind
import RewindExamples
import RewindLog
@testable import RewindPostgres
import RewindReplay
import RewindTestSupport
import Synchronization
import Testing

/// A recorder writing straight into a store: what it writes into a file, byte for byte, and
/// many at once. (A server lost mid-recording: `RecordingDestinationTests`, over both stores.)
@Suite("PostgreSQL recorder", .enabled(if: PostgresTestServer.enabled))
struct PostgresRecorderTests {
    static let app = AppIdentity(id: "com.example.todo", version: "3.0")

    /// The store's sessions of `install`, pulled into a file to read them with the read path.
    static func pulled(_ location: PostgresLocation, install: String, in folder: TemporaryDirectory) async throws -> EventLog {
        let store = try await PostgresLog.open(location, mode: .readOnly)
        let path = folder.file("\(install)-\(UUID().uuidString).rewind")
        do {
            _ = try await store.pull(.install(install), to: path)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
        return try EventLog(path: path, mode: .readOnly)
    }

    /// Whether `log`'s integrity report is sound but for holes between seqs: a store numbers
    /// the events of the sessions recorded into it from one sequence that every writer shares.
    static func soundButForStoreSeqs(_ log: any LogReader) throws -> Bool {
        let report = try log.checkIntegrity()
        return report.sqlite == ["ok"] && report.sessionsWithoutSnapshot.isEmpty && report.sessionsWithWrongBounds.isEmpty
            && report.sessionsContinuingAfterGap.isEmpty && report.unauthenticated.isEmpty
    }

    static func events(_ log: any LogReader) throws -> [LoggedEvent] {
        var cursor = log.events()
        var events: [LoggedEvent] = []
        while let event = try cursor.next() { events.append(event) }
        return events
    }

    @Test("the default configuration records into the store what it records into a file, and the store's states replay to the live ones")
    func sameAsFile() async throws {
        let folder = try TemporaryDirectory()
        try await PostgresTestServer.withDatabase { location in
            try await Self.checkSameAsFile(location, in: folder)
        }
    }

    @Test("snapshots every few actions, many of them first in their batch: each stands at the seq of the event before it, as in a file")
    func snapshotsFirstInBatch() async throws {
        let folder = try TemporaryDirectory()
        var configuration = RecorderConfiguration<TodoState, TodoAction>()
        configuration.snapshotInterval = 7
        configuration.snapshotBudget = .infinity
        // Batches of the interval's length: a take ends at the batch before a snapshot can end
        // it (as it does on a store, `snapshotJoinsItsEvents`), so the snapshot begins the next.
        configuration.batchSize = 7
        try await PostgresTestServer.withDatabase { location in
            let live = try await recordSession(
                into: try await RecordingDestination.postgres(location, install: "api-2"), app: Self.app, initialState: TodoState(),
                reducer: Todo.reducer, effects: Todo.effects(environment: .simulated()), user: TodoUser(seed: 5), actions: 300,
                configuration: configuration
            )
            let file = try EventLog(path: folder.file("file.rewind"))
            _ = try await recordSession(
                into: file, app: Self.app, initialState: TodoState(), reducer: Todo.reducer,
                effects: Todo.effects(environment: .simulated()), user: TodoUser(seed: 5), actions: 300, configuration: configuration
            )
            var installed = location
            installed.install = "api-2"
            let log = try await PostgresLogReader.open(installed)
            let session = try #require(try log.sessions().first)
            // By place in the session: the store's seqs are its own.
            func places(_ reader: any LogReader, _ id: Int64) throws -> [Int] {
                let seqs = try Self.events(reader).filter { $0.session == id }.map(\.seq)
                return try reader.snapshotIndex(session: id).map { snapshot in seqs.firstIndex { $0 > snapshot.seq } ?? seqs.count }
            }
            let stored = try places(log, session.id), filed = try places(file, 1)
            #expect(stored.count > 20 && stored == filed, "the same snapshots, after the same events")
            // First in their batch: written in a later transaction (xmin) than the event at their seq.
            let first = try await PostgresTestServer.strings(location, """
                SELECT count(*)::text FROM rewind.snapshots p JOIN rewind.events e ON e.session_id = p.session_id AND e.seq = p.seq
                WHERE p.kind = 'periodic' AND p.xmin <> e.xmin
                """)
            #expect(Int(first.first ?? "") ?? 0 > 10, "\(first)")
            #expect(try Replayer(log: log, reducer: Todo.reducer).verify(session: session.id).divergence == nil, "each snapshot is the state at its seq")
            #expect(try log.restoredState(app: Self.app, reducer: Todo.reducer) == live.store.state)
            await log.close()
        }
    }

    /// A shop store recording into the store, whose writer takes only when flushed (a
    /// minute's delay), with a snapshot every `snapshotInterval` actions whatever their size.
    static func recordingOnFlush(
        into location: PostgresLocation, install: String, snapshotInterval: Int
    ) async throws -> (Recorder<ShopState, ShopAction>, Store<ShopState, ShopAction>) {
        var configuration = RecorderConfiguration<ShopState, ShopAction>()
        configuration.snapshotInterval = snapshotInterval
        configuration.snapshotBudget = .infinity
        configuration.durability = .buffered(maxDelay: .seconds(60))
        let recorder = Recorder<ShopState, ShopAction>(
            into: try await .postgres(location, install: install), app: AppIdentity(id: "com.example.shop"), configuration: configuration
        )
        return (recorder, Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware))
    }

    @Test("a periodic snapshot goes in the transaction of the events before it, not in one of its own")
    func snapshotJoinsItsEvents() async throws {
        try await PostgresTestServer.withDatabase { location in
            // Each flush finds events, a snapshot (after the 50th, 100th and 150th action,
            // pushed with its event under the buffer's lock) and more events.
            let (recorder, shop) = try await Self.recordingOnFlush(into: location, install: "joined", snapshotInterval: 50)
            for round in 0..<3 {
                for index in 0..<60 { shop.dispatch(.cart(.applyDiscount(code: "R\(round)-\(index)"))) }
                try await recorder.flush()
            }
            try await recorder.close()
            // Each periodic snapshot's transaction (xmin) beside those of the event at its seq and
            // of the event after it.
            let rows = try await PostgresTestServer.strings(location, """
                SELECT (p.xmin = e.xmin)::text || ';' || coalesce((p.xmin = n.xmin)::text, 'last')
                FROM rewind.snapshots p JOIN rewind.events e ON e.session_id = p.session_id AND e.seq = p.seq
                     LEFT JOIN LATERAL (SELECT xmin FROM rewind.events WHERE session_id = p.session_id AND seq > p.seq ORDER BY seq LIMIT 1) n ON true
                WHERE p.kind = 'periodic' ORDER BY p.seq
                """)
            #expect(rows.count >= 3, "\(rows)")
            #expect(rows.allSatisfy { $0 == "true;false" }, "with the event before it, apart from the one after: \(rows)")
        }
    }

    @Test("a batch goes in a part at a time as it is encoded; a part naming a call site or case not seen before has the batch written again whole")
    func batchInParts() async throws {
        try await PostgresTestServer.withDatabase { location in
            // The first take is the 400 actions before the snapshot, the snapshot with them,
            // then the 200 after.
            let (recorder, shop) = try await Self.recordingOnFlush(into: location, install: "parts", snapshotInterval: 400)
            var expected: [(actionCase: String, line: UInt)] = []
            func dispatch(_ index: Int, known: Bool) {
                if known || index < 300 {
                    shop.dispatch(.cart(.applyDiscount(code: "D\(index)")), from: ActionSource(line: 1))
                    expected.append(("cart.applyDiscount", 1))
                } else {
                    // Another case, and call sites of their own: first seen after the first
                    // part (256 items).
                    let line = UInt(1_000 + index % 7)
                    shop.dispatch(.cart(.setQuantity(productID: "p\(index % 5)", quantity: 1 + index % 4)), from: ActionSource(line: line))
                    expected.append(("cart.setQuantity", line))
                }
            }
            for index in 0..<600 { dispatch(index, known: false) }
            try await recorder.flush()
            // Every call site and case known by now: copied as encoded, at the first try.
            for index in 600..<1_200 { dispatch(index, known: index % 2 == 0) }
            try await recorder.close()

            var installed = location
            installed.install = "parts"
            let log = try await PostgresLogReader.open(installed)
            let session = try #require(try log.sessions().first)
            let events = try Self.events(log)
            #expect(events.map(\.actionCase) == expected.map(\.actionCase))
            #expect(events.map(\.source.line) == expected.map(\.line))
            // The first take's seqs, claimed in the transaction rolled back, are burnt: the
            // session's first event is 401 after its base; every later one follows the one
            // before (one writer), so no later take was tried twice.
            let steps = zip(events.dropFirst(), events).map { $0.seq - $1.seq }
            #expect(events.first.map { $0.seq - session.baseSeq } == 401)
            #expect(steps.allSatisfy { $0 == 1 }, "\(Set(steps))")
            #expect(try Replayer(log: log, reducer: Shop.reducer).verify(session: session.id).divergence == nil, "each snapshot is the state at its seq")
            #expect(try log.snapshotIndex(session: session.id).count >= 3)
            #expect(try log.restoredState(app: AppIdentity(id: "com.example.shop"), reducer: Shop.reducer) == shop.state)
            await log.close()
        }
    }

    @Test("a recorder's and a push's large states are compressed with lz4 where the server has it, not with the slower default")
    func statesCompressedWithLZ4() async throws {
        var configuration = RecorderConfiguration<ShopState, ShopAction>()
        configuration.snapshotInterval = 100
        configuration.snapshotBudget = .infinity
        let folder = try TemporaryDirectory()
        let file = try EventLog(path: folder.file("device.rewind"))
        try await PostgresTestServer.withDatabase { location in
            let lz4 = try await PostgresTestServer.strings(location, "SELECT ('lz4' = ANY(enumvals))::text FROM pg_settings WHERE name = 'default_toast_compression'")
            try #require(lz4 == ["true"], "a server with lz4 (PostgreSQL 14 and later, built with it)")
            for destination in [try await RecordingDestination.postgres(location, install: "lz4"), .log(file)] {
                let recorder = Recorder<ShopState, ShopAction>(into: destination, app: AppIdentity(id: "com.example.shop"), configuration: configuration)
                let shop = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
                // A catalogue of 300 products, then a cart of them: states of about 20 KB, past
                // the size the server compresses at.
                let products = (0..<300).map { Product(id: "product-\($0)", name: "Product number \($0)", price: 100 + $0) }
                shop.dispatch(.catalogue(.loaded(products: products, discounts: [])))
                for index in 0..<300 { shop.dispatch(.cart(.add(productID: "product-\(index)", quantity: 1 + index % 9))) }
                try await recorder.close()
            }
            let store = try await PostgresLog.open(location)
            _ = try await store.push(file)
            await store.close()
            let methods = try await PostgresTestServer.strings(location, """
                SELECT who || ':' || method || ':' || count(*)::text
                FROM (SELECT coalesce(s.install_id, 'pushed') AS who, coalesce(pg_column_compression(p.state), 'none') AS method
                      FROM rewind.snapshots p JOIN rewind.sessions s ON s.id = p.session_id WHERE octet_length(p.state) > 4096) AS large
                GROUP BY who, method ORDER BY who, method
                """)
            #expect(methods.count == 2 && methods.allSatisfy { $0.contains(":lz4:") }, "\(methods)")
        }
    }

    private static func checkSameAsFile(_ location: PostgresLocation, in folder: TemporaryDirectory) async throws {
        let destination = try await RecordingDestination.postgres(location, install: "api-1")
        #expect(destination.name == location.description)
        let live = try await recordSession(
            into: destination, app: Self.app, initialState: TodoState(), reducer: Todo.reducer,
            effects: Todo.effects(environment: .simulated()), user: TodoUser(seed: 11), actions: 400
        )
        let file = try EventLog(path: folder.file("file.rewind"))
        let filed = try await recordSession(
            into: file, app: Self.app, initialState: TodoState(), reducer: Todo.reducer,
            effects: Todo.effects(environment: .simulated()), user: TodoUser(seed: 11), actions: 400
        )
        #expect(live.reduced.map(\.action) == filed.reduced.map(\.action), "the same scripted session")

        let log = try await Self.pulled(location, install: "api-1", in: folder)
        #expect(try log.checkIntegrity().isSound)
        // Read in place, the store answers as the file pulled from it; a service that restarts
        // restores its state from the store.
        var installed = location
        installed.install = "api-1"
        let inPlace = try await PostgresLogReader.open(installed)
        #expect(try LogReaderAnswers.of(inPlace).map { $0.replacingOccurrences(of: inPlace.path, with: log.path) } == LogReaderAnswers.of(log))
        #expect(try inPlace.checkIntegrity().isSound)
        #expect(try inPlace.restoredState(app: Self.app, reducer: Todo.reducer) == live.store.state)
        await inPlace.close()
        let sessions = try log.sessions()
        #expect(sessions.count == 1 && sessions.first?.eventCount == Int64(live.reduced.count) && sessions.first?.app == Self.app)
        let stored = try Self.events(log), recorded = try Self.events(file)
        #expect(stored.count == live.reduced.count && live.reduced.count >= 400)
        #expect(stored.map { $0.actionCase } == recorded.map { $0.actionCase })
        #expect(stored.map { $0.payload } == recorded.map { $0.payload }, "the same payloads, byte for byte")
        #expect(stored.map { $0.source } == recorded.map { $0.source })
        // Causes as the file holds them, by place: the store's seqs are its own.
        func links(_ events: [LoggedEvent]) -> [[Int?]] {
            let place = Dictionary(uniqueKeysWithValues: events.enumerated().map { ($1.seq, $0) })
            return events.map { [$0.cause.flatMap { place[$0] }, $0.root.flatMap { place[$0] }] }
        }
        #expect(links(stored) == links(recorded))
        #expect(recorded.contains { $0.cause != nil } && recorded.allSatisfy { $0.root != nil }, "effects' results name their causes")
        let seqs = stored.map(\.seq)
        #expect(seqs == seqs.sorted() && Set(seqs).count == seqs.count, "the session's order is exact")

        let replayer = Replayer(log: log, reducer: Todo.reducer)
        for (index, seq) in seqs.enumerated() where index % 20 == 0 || index == seqs.count - 1 {
            let state = try replayer.state(at: seq)
            #expect(state == live.states[index], "state after action \(index + 1)")
        }
        #expect(try replayer.verify(session: sessions[0].id).divergence == nil, "the store's snapshots agree with the replay")
        let snapshots = (store: try log.snapshotIndex(session: sessions[0].id).count, file: try file.snapshotIndex(session: 1).count)
        #expect(snapshots.store == snapshots.file, "snapshots taken as into the file")

        // Every command on the install's sessions by URL answers as on the file pulled from them.
        let installURL = PushCommandTests.url(location) + "&install=api-1"
        let name = try PostgresLocation(parsing: installURL).description
        let lastSeq = "\(try #require(seqs.last))"
        // A temporary folder of the command's own, to see that nothing is left there.
        let scratch = try TemporaryDirectory()
        for command in [["sessions"], ["log", "--limit", "25"], ["show", "--at", lastSeq], ["state", "--at", lastSeq], ["verify"], ["check"], ["schema"]] {
            let onFile = try await run(builtProduct("rewind"), [command[0], log.path] + command.dropFirst(), in: folder.path)
            let onStore = try await run(builtProduct("rewind"), [command[0], installURL] + command.dropFirst(), in: folder.path, environment: ["TMPDIR": scratch.path])
            #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).isEmpty, "\(command) left a file behind")
            #expect(onFile.status == onStore.status, "\(command): \(onStore.standardError)")
            #expect((onStore.standardOutput + onStore.standardError).replacingOccurrences(of: name, with: log.path)
                    == onFile.standardOutput + onFile.standardError, "\(command)")
        }
        let listed = try await run(builtProduct("rewind"), ["sessions", PushCommandTests.url(location), "--install", "api-1"], in: folder.path)
        #expect(listed.status == 0 && listed.standardOutput.contains("recorded into the store"), "\(listed.standardOutput)")
    }

    @Test("a suspended recorder ends its session in the store as suspended; after resume it records on in a new one")
    func suspension() async throws {
        let folder = try TemporaryDirectory()
        try await PostgresTestServer.withDatabase { location in
            let recorder = Recorder<TodoState, TodoAction>(into: try await RecordingDestination.postgres(location, install: "phone-1"), app: Self.app)
            let store = Store(initialState: TodoState(), reducer: Todo.reducer, middleware: recorder.middleware)
            store.dispatch(.filter(.active))
            store.dispatch(.filter(.completed))
            try await recorder.suspend()
            store.dispatch(.filter(.all))
            recorder.resume()
            try await recorder.close()

            let log = try await Self.pulled(location, install: "phone-1", in: folder)
            let sessions = try log.sessions()
            #expect(sessions.map { $0.ending?.kind } == [.suspended, .closed])
            #expect(sessions.map(\.eventCount) == [2, 1])
            #expect(try Self.soundButForStoreSeqs(log))
        }
    }

    @Test("the connection lost right after COMMIT: the recorder looks, finds the batch stored, and records no loss")
    func lostAfterCommit() async throws {
        try await PostgresTestServer.withDatabase { location in
            let store = try await PostgresLog.open(location, queryTimeout: .seconds(10))
            try await Self.recordAcrossLostCommit(store, at: location) {
                #expect(store.connection.isClosed, "the fault happened")
            }
        }
    }

    @Test("the answer to COMMIT lost as the server restarts: the writer looks again once it is back, and the batch is neither lost nor doubled")
    func lostAfterCommitWhileRestarting() async throws {
        let server = try PrivatePostgresServer.start()
        let resumed = DispatchSemaphore(value: 0)
        let faulted = Atomic(false)
        // Stopped once the fault's resume has run, whatever the test found: a server resumed
        // after this stop would outlive the test.
        defer {
            if faulted.load(ordering: .acquiring) { resumed.wait() }
            server.stop()
        }
        let store = try await PostgresLog.open(server.location, queryTimeout: .seconds(10))
        let location = server.location
        // The batch's COMMIT reaches the server, its answer is lost, and the server goes down
        // before the writer can look; it is back 1.5 s later.
        try await Self.recordAcrossLostCommit(store, at: location, then: {
            for _ in 0..<100 {
                if (try? await PostgresTestServer.strings(location, "SELECT count(*)::text FROM rewind.events")) == ["15"] { break }
                try? await Task.sleep(for: .milliseconds(50))
            }
            server.stop()
            faulted.store(true, ordering: .releasing)
            Thread {
                Thread.sleep(forTimeInterval: 1.5)
                _ = server.resume()
                resumed.signal()
            }.start()
        }) {
            resumed.wait()
            resumed.signal()
        }
    }

    /// Records 10 actions, then 5 whose batch loses its COMMIT's answer (`then` runs after,
    /// a further fault), runs `afterwards`, then 5 more: every one must be in `location`'s
    /// store once, with no failure and no gap, and replay to the live state.
    static func recordAcrossLostCommit(
        _ store: PostgresLog, at location: PostgresLocation, then fault: @escaping @Sendable () async -> Void = {}, afterwards: () -> Void
    ) async throws {
        let failures = Recorded<RecorderFailure<ShopAction>>()
        var configuration = RecorderConfiguration<ShopState, ShopAction>()
        configuration.onFailure = { failures.append($0) }
        let recorder = Recorder<ShopState, ShopAction>(
            into: RecordingDestination(PostgresRecordingLog(store: store, install: "settled")), app: AppIdentity(id: "com.example.shop"),
            configuration: configuration
        )
        let shop = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
        for index in 0..<10 { shop.dispatch(.cart(.applyDiscount(code: "A\(index)"))) }
        try await recorder.flush()
        store.losesCommit.withLock { $0 = fault }
        for index in 0..<5 { shop.dispatch(.cart(.applyDiscount(code: "B\(index)"))) }
        try await recorder.flush()
        afterwards()
        for index in 0..<5 { shop.dispatch(.cart(.applyDiscount(code: "C\(index)"))) }
        try await recorder.close()

        #expect(failures.all.isEmpty, "\(failures.all)")
        var settled = location
        settled.install = "settled"
        let log = try await PostgresLogReader.open(settled)
        #expect(try log.sessions().map(\.eventCount) == [20])
        #expect(try log.gaps().isEmpty)
        #expect(try log.restoredState(app: AppIdentity(id: "com.example.shop"), reducer: Shop.reducer) == shop.state)
        await log.close()
    }

    @Test("the server gone in the middle of the recorder's copies, again and again: reported, never a trap; what is stored is whole")
    func serverGoneMidCopy() async throws {
        try await PostgresTestServer.withDatabase { location in
            await (try PostgresLog.open(location)).close()
            // Every connection through it is told the server is shutting down (as a restart
            // tells it), then cut, once the recorder has sent 100 KB through it: most of what
            // it sends is copies, so most cuts fall inside one.
            let proxy = try CuttingProxy(to: location.port, cutAfter: 100_000, farewell: true)
            defer { proxy.stop() }
            var through = location
            through.port = proxy.port
            let failures = Recorded<RecorderFailure<ShopAction>>()
            var configuration = RecorderConfiguration<ShopState, ShopAction>()
            configuration.onFailure = { failures.append($0) }
            // Batches small enough that some commit before a connection's cut: a batch fills to
            // its size when the writer falls behind (a loaded machine), and the copies of one of
            // the default 2,048 of these actions are over twice the 100 KB a connection carries —
            // none would ever commit, and nothing would be stored (seen once, under the whole
            // suite's load).
            configuration.batchSize = 256
            let recorder = Recorder<ShopState, ShopAction>(
                into: try await .postgres(through, install: "cut"), app: AppIdentity(id: "com.example.shop"), configuration: configuration
            )
            let shop = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
            for index in 0..<6_000 { shop.dispatch(.cart(.applyDiscount(code: "CUT\(index)"))) }
            try? await recorder.close()
            // Each cut is reported, as the connection lost — not a trap, not postgres-nio's words.
            #expect(!failures.all.isEmpty)
            for failure in failures.all {
                let said = "\(failure.error)"
                #expect(said.contains("127.0.0.1:\(proxy.port)") && !said.contains("ClosedConnection"), "\(said)")
            }
            // What was committed is whole: each session's events replay, and agree with their snapshots.
            var stored = location
            stored.install = "cut"
            let log = try await PostgresLogReader.open(stored)
            let sessions = try log.sessions()
            let events = try PostgresRecorderTests.events(log)
            #expect(
                !events.isEmpty && events.count < 6_000 && sessions.reduce(0) { $0 + $1.eventCount } == Int64(events.count),
                "\(events.count) events stored in \(sessions.count) sessions (\(sessions.map(\.eventCount))), \(failures.all.count) failures"
            )
            let replayer = Replayer(log: log, reducer: Shop.reducer)
            for session in sessions {
                #expect(try replayer.verify(session: session.id).divergence == nil)
            }
            await log.close()
        }
    }

    @Test("four recorders, each on its own connection, write at once: each session whole and in order")
    func concurrentRecorders() async throws {
        try await PostgresTestServer.withDatabase { location in
            let sessions = try await withThrowingTaskGroup(of: RecordedSession<TodoState, TodoAction>.self) { group in
                for seed in 1...4 {
                    group.addTask {
                        var configuration = RecorderConfiguration<TodoState, TodoAction>()
                        configuration.batchSize = 7
                        return try await recordSession(
                            into: try await RecordingDestination.postgres(location, install: "many"), app: Self.app, initialState: TodoState(),
                            reducer: Todo.reducer, effects: Todo.effects(environment: .simulated()), user: TodoUser(seed: UInt64(seed)), actions: 250,
                            configuration: configuration
                        )
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            var many = location
            many.install = "many"
            let log = try await PostgresLogReader.open(many)
            defer { Task { await log.close() } }
            #expect(try Self.soundButForStoreSeqs(log))
            let replayer = Replayer(log: log, reducer: Todo.reducer)
            var finals = try log.sessions().map { session in try replayer.finalState(session: session.id, fromStart: true) }
            #expect(try log.sessions().map(\.eventCount).sorted() == sessions.map { Int64($0.reduced.count) }.sorted())
            for live in sessions {
                let index = try #require(finals.firstIndex(of: live.store.state), "a session replays to each live store's state")
                finals.remove(at: index)
            }
        }
    }
}
