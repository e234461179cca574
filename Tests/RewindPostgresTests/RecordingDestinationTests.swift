import Foundation
import Rewind
import RewindExamples
import RewindLog
import RewindLogCore
@testable import RewindPostgres
import PostgresNIO
import RewindReplay
import RewindTestSupport
import Testing

/// The recorder's promises, one suite over every store — the store conformance suite's
/// recording half: each test runs into a log file, into the in-memory store written on the core
/// alone (`MemoryLog`) and into a PostgreSQL store, and reads back what it holds through the one
/// read protocol (the store's sessions read in place, by their install).
@Suite("Recording into any store")
struct RecordingDestinationTests {
    enum Kind: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case file, memory, postgres
        /// A PostgreSQL store whose stall is its recorder's backend stopped (SIGSTOP), with a
        /// 5 s query timeout that the stall outlasts: the writer's connection is closed under it
        /// and opened anew. (At 1 s, a statement before the stall, slowed by the suite's load,
        /// timed out too.)
        case postgresStoppedBackend
        var testDescription: String { rawValue }

        /// Every kind this run can reach (PostgreSQL when a server is configured).
        static var available: [Kind] { PostgresTestServer.enabled ? [.file, .memory, .postgres] : [.file, .memory] }
        /// The kinds a stall is tried on: each store, and a stopped backend besides a lock.
        static var stalling: [Kind] { available + (PostgresTestServer.enabled ? [.postgresStoppedBackend] : []) }
    }

    /// A destination of `kind`, and how to take it away and give it back mid-recording (a
    /// full disk for a file, a stopped server for a store).
    struct Fault {
        var destination: RecordingDestination
        var cut: () throws -> Void
        var restore: () throws -> Void
        var readBack: () async throws -> any LogReader
        /// Makes the destination stop answering without failing (a write lock held elsewhere,
        /// a stopped server); the closure it returns makes it answer again.
        var stall: () async throws -> @Sendable () throws -> Void
    }

    static func withDestination(_ kind: Kind, _ body: (Fault) async throws -> Void) async throws {
        let folder = try TemporaryDirectory()
        switch kind {
        case .file:
            let path = folder.file("file.rewind")
            let log = try EventLog(path: path)
            try await body(Fault(
                destination: .log(log), cut: { try log.simulateFullDisk() }, restore: { try log.freeDiskSpace() },
                readBack: { try EventLog(path: path, mode: .readOnly) },
                stall: {
                    let lock = try SQLiteWriteLock(path: path)
                    return { try lock.release() }
                }
            ))
        case .memory:
            let log = MemoryLog()
            try await body(Fault(
                destination: RecordingDestination(log), cut: { log.isFailing.store(true, ordering: .releasing) },
                restore: { log.isFailing.store(false, ordering: .releasing) }, readBack: { log },
                stall: {
                    log.isStalled.store(true, ordering: .releasing)
                    return { log.isStalled.store(false, ordering: .releasing) }
                }
            ))
        case .postgres, .postgresStoppedBackend:
            let server = try PrivatePostgresServer.start()
            defer { server.stop() }
            // Readers hold connections, which must be closed before they go.
            let readers = Recorded<PostgresLogReader>()
            do {
                try await body(Fault(
                    destination: try await .postgres(server.location, install: "either", queryTimeout: kind == .postgres ? .seconds(10) : .seconds(5)),
                    cut: { server.stop() },
                    restore: { guard server.resume() else { throw CancellationError() } },
                    readBack: {
                        var location = server.location
                        location.install = "either"
                        let reader = try await PostgresLogReader.open(location)
                        readers.append(reader)
                        return reader
                    },
                    stall: {
                        kind == .postgres
                            ? try await PostgresTableLock.take(at: server.location, on: "rewind.events")
                            : try await StoppedBackends.stop(at: server.location)
                    }
                ))
            } catch {
                for reader in readers.all { await reader.close() }
                throw error
            }
            for reader in readers.all { await reader.close() }
        }
    }

    @Test("every action in order, with its case and source, and states that replay to the live ones", arguments: Kind.available)
    func everyAction(_ kind: Kind) async throws {
        try await Self.withDestination(kind) { fault in
            let live = try await recordSession(
                into: fault.destination, app: AppIdentity(id: "com.example.shop", version: "2.3"), initialState: ShopState(),
                reducer: Shop.reducer, effects: Shop.effects(environment: .simulated), user: Shopper(seed: 3), actions: 300
            )
            let log = try await fault.readBack()
            let events = try PostgresRecorderTests.events(log)
            #expect(events.map(\.actionCase) == live.reduced.map { ActionCaseName.of($0.action) })
            #expect(events.map(\.source) == live.reduced.map(\.source))
            let session = try #require(try log.sessions().first)
            #expect(session.eventCount == Int64(live.reduced.count) && session.seqRange == events.first!.seq...events.last!.seq)
            let replayer = Replayer(log: log, reducer: Shop.reducer)
            for (index, event) in events.enumerated() where index % 10 == 0 || index == events.count - 1 {
                let state = try replayer.state(at: event.seq)
                #expect(state == live.states[index], "after action \(index + 1)")
            }
            #expect(try replayer.verify(session: session.id).divergence == nil)
        }
    }

    @Test("a destination lost mid-recording: the loss is reported with its actions, recorded as a gap, and recording resumes from the live state", arguments: Kind.available)
    func lostMidRecording(_ kind: Kind) async throws {
        try await Self.withDestination(kind) { fault in
            let failures = Recorded<RecorderFailure<ShopAction>>()
            var configuration = RecorderConfiguration<ShopState, ShopAction>()
            configuration.onFailure = { failures.append($0) }
            configuration.snapshotInterval = 0
            let recorder = Recorder<ShopState, ShopAction>(into: fault.destination, app: AppIdentity(id: "com.example.shop"), configuration: configuration)
            let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
            store.dispatch(.cart(.clear))
            try await recorder.flush()

            try fault.cut()
            let big = String(repeating: "x", count: 20_000)
            for index in 0..<3 { store.dispatch(.cart(.remove(productID: "\(big)\(index)"))) }
            #expect(throws: EventLogError.self) { try recorder.flush() }
            #expect(failures.all.flatMap(\.unrecorded).count == 3)

            try fault.restore()
            store.dispatch(.cart(.applyDiscount(code: "AFTER")))
            try await recorder.flush()
            try await recorder.close()

            let log = try await fault.readBack()
            let sessions = try log.sessions()
            // The three lost actions may reach the writer in more than one batch (a loaded
            // machine wakes it between dispatches): a batch after the first failure begins a
            // session from the live state, whose own write fails too, and ends empty with a gap.
            #expect(sessions.first?.eventCount == 1 && sessions.last?.eventCount == 1 && sessions.count >= 2,
                    "the action before, then the one after the loss, in a new session: \(sessions.map(\.eventCount))")
            #expect(sessions.dropFirst().dropLast().allSatisfy { $0.eventCount == 0 }, "\(sessions.map(\.eventCount))")
            let gaps = try log.gaps()
            #expect(gaps.count == sessions.count - 1, "a gap after each session but the last")
            #expect(gaps.map(\.lost).reduce(0, +) == 3 && gaps.allSatisfy { $0.cases == ["cart.remove": $0.lost] })
            for (gap, (before, after)) in zip(gaps, zip(sessions, sessions.dropFirst())) {
                #expect(gap.session == before.id && gap.resumedSession == after.id)
            }
            #expect(gaps.first?.afterSeq == sessions[0].seqRange?.upperBound)
            #expect(try log.restoredState(app: AppIdentity(id: "com.example.shop"), reducer: Shop.reducer) == store.state)
        }
    }

    @Test("text with a NUL character: the action is recorded without its note and reported, the session without its info; nothing else is lost", arguments: Kind.available)
    func nulText(_ kind: Kind) async throws {
        try await Self.withDestination(kind) { fault in
            let failures = Recorded<RecorderFailure<ShopAction>>()
            var configuration = RecorderConfiguration<ShopState, ShopAction>()
            configuration.onFailure = { failures.append($0) }
            configuration.sessionInfo = "{\"device\":\"a\u{0}b\"}"
            let recorder = Recorder<ShopState, ShopAction>(into: fault.destination, app: AppIdentity(id: "com.example.shop"), configuration: configuration)
            let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
            store.dispatch(.cart(.clear), from: ActionSource(info: "before ünï ✓ \u{1}"))
            store.dispatch(.cart(.applyDiscount(code: "NUL")), from: ActionSource(info: "a\u{0}b"))
            store.dispatch(.cart(.clear), from: ActionSource(info: "after"))
            #expect(throws: EventLogError.self) { try recorder.flush() }
            try await recorder.close()

            let reasons = failures.all.map(\.error.description)
            #expect(reasons.contains { $0.contains("sessionInfo contains a NUL character") }, "\(reasons)")
            #expect(failures.all.contains { $0.unrecorded.map(\.source.info) == ["a\u{0}b"] && $0.error.description.contains("note contains a NUL") })
            let log = try await fault.readBack()
            let events = try PostgresRecorderTests.events(log)
            #expect(events.map(\.source.info) == ["before ünï ✓ \u{1}", nil, "after"])
            #expect(events.map(\.actionCase) == ["cart.clear", "cart.applyDiscount", "cart.clear"])
            #expect(try log.sessions().map(\.info) == [nil])
            #expect(try log.gaps().isEmpty)
            #expect(try log.restoredState(app: AppIdentity(id: "com.example.shop"), reducer: Shop.reducer) == store.state)
        }
    }

    @Test("a stuck destination: dispatch waits at most the stall limit, the actions let go meanwhile are a gap, and recording resumes", arguments: Kind.stalling)
    func stuckDestination(_ kind: Kind) async throws {
        try await Self.withDestination(kind) { fault in
            let failures = Recorded<RecorderFailure<ShopAction>>()
            var configuration = RecorderConfiguration<ShopState, ShopAction>()
            configuration.onFailure = { failures.append($0) }
            configuration.bufferCapacity = 64
            configuration.batchSize = 16
            configuration.stallLimit = .milliseconds(300)
            let recorder = Recorder<ShopState, ShopAction>(into: fault.destination, app: AppIdentity(id: "com.example.shop"), configuration: configuration)
            let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
            var dispatched = 0
            func dispatch() {
                store.dispatch(.cart(.applyDiscount(code: "D\(dispatched)")))
                dispatched += 1
            }
            for _ in 0..<20 { dispatch() }
            try await recorder.flush()

            // Stuck for 3 s (a stopped backend 7 s, past its query timeout), dispatching all
            // along (and for a second after). The release comes from a thread of its own: on
            // Linux, Dispatch's global queues share their threads with the test's pool, which
            // this loop and its neighbours keep busy.
            let stuck: Duration = kind == .postgresStoppedBackend ? .seconds(7) : .seconds(3)
            let answer = try await fault.stall()
            let released = DispatchSemaphore(value: 0)
            Thread {
                Thread.sleep(forTimeInterval: Double(stuck.components.seconds))
                try? answer()
                released.signal()
            }.start()
            let clock = ContinuousClock()
            let start = clock.now
            var longest = Duration.zero
            while clock.now - start < stuck + .seconds(1) {
                let before = clock.now
                dispatch()
                longest = max(longest, clock.now - before)
            }
            released.wait()
            #expect(throws: EventLogError.self) { try recorder.flush() }
            // Fewer actions than the buffer holds: none can be let go, so they resume recording
            // even if the writer, starved of the CPU by this loop, looked stuck again at its end.
            // Under the suite's load the first writes after a stopped backend is continued may
            // still meet what the stall cost (in CI: once "the connection to the server was
            // lost", once a second write past the query timeout): their actions are then gaps
            // like the stall's, counted below, and recording must resume within a few more
            // writes. Any other destination must record them at once.
            for _ in 0..<20 { dispatch() }
            var failedAfterRelease = 0
            while true {
                do {
                    try await recorder.flush()
                    break
                } catch where kind == .postgresStoppedBackend && failedAfterRelease < 3 {
                    failedAfterRelease += 1
                    print("stuck \(kind): flush \(failedAfterRelease) after the release failed: \(error)")
                    for _ in 0..<20 { dispatch() }
                }
            }
            try await recorder.close()

            print("stuck \(kind): longest dispatch \(longest) over \(dispatched) dispatches")
            // The app never waited much longer than the limit, and went on dispatching.
            #expect(longest < .milliseconds(300) + .seconds(1), "longest dispatch \(longest)")
            #expect(dispatched > 1_000)
            // Every action is in the log or counted in a gap; the stall's gap says why.
            let log = try await fault.readBack()
            let sessions = try log.sessions()
            let gaps = try log.gaps()
            let recorded = sessions.reduce(0) { $0 + Int($1.eventCount) }
            #expect(recorded + gaps.reduce(0) { $0 + $1.lost } == dispatched)
            // The stall's actions are counted in the gap of the loss they belong to: their own,
            // or the failed write's when the query timeout closed the connection first.
            let stall = try #require(gaps.first { $0.lost > 0 }, "gaps: \(gaps.map(\.summary))")
            #expect(failures.all.contains { if case .stalled = $0.error { true } else { false } })
            if kind == .postgresStoppedBackend {
                // The stopped backend outlasted the query timeout: the write in flight failed at it.
                #expect(failures.all.contains { "\($0.error)".contains("did not answer within 5") }, "\(failures.all.map { "\($0.error)" })")
            }
            #expect(stall.lost > 0 && gaps.allSatisfy { $0.resumedSession != nil } && sessions.count >= 2, "gaps: \(gaps.map(\.summary)), sessions: \(sessions.map { ($0.id, $0.eventCount) }), failures: \(failures.all.map { "\($0.unrecorded.count)+\($0.unlisted): \($0.error)" })")
            #expect(failures.all.reduce(0) { $0 + $1.unrecorded.count + $1.unlisted } == gaps.reduce(0) { $0 + $1.lost })
            // A store stuck for long costs no more memory than the buffer: the rest is counted.
            #expect(failures.all.allSatisfy { $0.unrecorded.count <= 64 } && failures.all.contains { $0.unlisted > 0 })
            // Recording resumed from the live state: the last session replays to it.
            let restored = try log.restoredState(app: AppIdentity(id: "com.example.shop"), reducer: Shop.reducer)
            #expect(restored == store.state, "gaps: \(gaps.map(\.summary)), sessions: \(sessions.map { ($0.id, $0.eventCount, $0.baseSeq, $0.seqRange as Any) }), dispatched \(dispatched), live \(store.state.cart), restored \(restored?.cart as Any)")
        }
    }
}

/// Another session holding a PostgreSQL table's lock (`LOCK TABLE … IN ACCESS EXCLUSIVE MODE` in
/// an open transaction), as a long migration or a careless admin would: writes to the table wait
/// on it. Its release runs on postgres-nio's event loop, so it needs no task (the test's thread
/// may be busy dispatching).
enum PostgresTableLock {
    static func take(at location: PostgresLocation, on table: String) async throws -> @Sendable () throws -> Void {
        let connection = try await PostgresConnection.connect(
            configuration: .init(host: location.host, port: location.port, username: location.user, password: location.password, database: location.database, tls: .disable),
            id: 97, logger: PostgresLog.logger
        )
        _ = try await connection.query("BEGIN", logger: PostgresLog.logger)
        _ = try await connection.query(PostgresQuery(unsafeSQL: "LOCK TABLE \(table) IN ACCESS EXCLUSIVE MODE"), logger: PostgresLog.logger)
        return {
            _ = try connection.query("ROLLBACK", logger: PostgresLog.logger).wait()
            try connection.close().wait()
        }
    }
}

/// Every other session's backend on a database stopped with SIGSTOP — as a frozen VM or a
/// silent network cut leaves a connection: open, and answering nothing. (Stopping the
/// postmaster would leave the open connections running.)
enum StoppedBackends {
    static func stop(at location: PostgresLocation) async throws -> @Sendable () throws -> Void {
        let pids = try await PostgresTestServer.strings(location, """
            SELECT pid::text FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'
            """).compactMap { pid_t($0) }
        guard !pids.isEmpty else { throw PostgresTestServer.Unavailable(description: "no backend to stop") }
        for pid in pids { kill(pid, SIGSTOP) }
        return { for pid in pids { kill(pid, SIGCONT) } }
    }
}
