#if PostgreSQL
import Foundation
import Logging
import PostgresNIO
import Rewind
import RewindExamples
import RewindLog
import RewindPostgres
import RewindReplay

/// `postgres` (needs `--postgres URL`, a server whose user may create databases; each run uses
/// a fresh database, dropped after):
/// - push: events per second from a SQLite log into a store, against `COPY … FROM STDIN` of the
///   same rows into the same table (the server's own fastest ingest, reading the log the same
///   way); and with several pushers at once, each its own log;
/// - record: a store's actions per second through the recorder (the default configuration),
///   into the store against into a SQLite log file;
/// - fleet: a log of many short sessions (a fleet's) pushed, events per second against `COPY`
///   of the same rows; then sessions per second answered by `rewind verify|bisect
///   --all-sessions` over the store, by workers, against the same question over the log file.
///   It runs the `rewind` built next to this tool (`swift build -c release --product rewind`).
struct PostgresWorkload {
    var server: PostgresLocation
    var events: Int
    var pushers: Int
    var fleetSessions: Int
    var runs: Int
    var seed: UInt64
    /// Which parts to run (`--postgres-parts`: push, record, read, fleet).
    var parts: [String]

    static let logger = Logger(label: "rewind-bench", factory: { _ in SwiftLogNoOpLogHandler() })

    func measure() async throws -> [WorkloadResult] {
        var results: [WorkloadResult] = []
        if parts.contains("push") { results.append(try await push()) }
        if parts.contains("record") { results.append(try await record()) }
        if parts.contains("read") { results.append(try await read()) }
        if parts.contains("fleet") { results += try await fleet() }
        return results
    }

    // MARK: - Push

    private func push() async throws -> WorkloadResult {
        let one = try await ReplayLogs(actions: events, large: false, seed: seed, codecs: ["binary"])
        defer { one.remove() }
        var many: [ReplayLogs] = []
        for index in 0..<pushers { many.append(try await ReplayLogs(actions: events / pushers, large: false, seed: seed + UInt64(index), codecs: ["binary"])) }
        defer { many.forEach { $0.remove() } }
        let source = try EventLog(path: one.byCodec[0].path, mode: .readOnly)
        let logs = try many.map { try EventLog(path: $0.byCodec[0].path, mode: .readOnly) }
        let total = Double(events / pushers * pushers)

        var copy: [Double] = [], pushed: [Double] = [], small: [Double] = [], concurrent: [Double] = []
        for _ in 0..<runs {
            copy.append(Double(events) / (try await withDatabase { location in try await copyRows(of: source, into: location) }))
            pushed.append(Double(events) / (try await pushSeconds(source)))
            small.append(Double(events) / (try await pushSeconds(source, batchSize: 1_000)))
            concurrent.append(total / (try await withDatabase { location in
                await (try PostgresLog.open(location)).close()
                return try await ContinuousClock().measure {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for log in logs {
                            group.addTask {
                                let store = try await PostgresLog.open(location)
                                _ = try await store.push(log)
                                await store.close()
                            }
                        }
                        try await group.waitForAll()
                    }
                }.seconds
            }))
        }
        let baseline = median(copy)
        return WorkloadResult(
            name: "push, \(events.formatted()) todo actions (binary) into a local PostgreSQL",
            baseline: "COPY FROM STDIN of the same rows",
            variants: [
                .init(name: "COPY of the same rows (baseline)", value: baseline, unit: "events/s", ratioToBaseline: 1, runs: copy),
                .init(name: "rewind push, default batches (10,000)", value: median(pushed), unit: "events/s", ratioToBaseline: median(pushed) / baseline, runs: pushed),
                .init(name: "rewind push, batches of 1,000", value: median(small), unit: "events/s", ratioToBaseline: median(small) / baseline, runs: small),
                .init(name: "\(pushers) pushers at once, a log each", value: median(concurrent), unit: "events/s", ratioToBaseline: median(concurrent) / baseline, runs: concurrent),
            ],
            notes: ["server and tool share the machine's \(ProcessInfo.processInfo.activeProcessorCount) cores"]
        )
    }

    /// The seconds `log` takes to push into a fresh store.
    private func pushSeconds(_ log: EventLog, batchSize: Int = PostgresLog.defaultPushBatchSize) async throws -> Double {
        try await withDatabase { location in
            let store = try await PostgresLog.open(location)
            let seconds = try await ContinuousClock().measure { _ = try await store.push(log, batchSize: batchSize) }.seconds
            await store.close()
            return seconds
        }
    }

    /// Copies the log's events into the store's events table with `COPY`, as one session; returns
    /// the seconds the copy took (reading the log included, interning its cases and sources not).
    private func copyRows(of log: EventLog, into location: PostgresLocation) async throws -> Double {
        await (try PostgresLog.open(location)).close()
        let connection = try await PostgresConnection.connect(
            configuration: .init(host: location.host, port: location.port, username: location.user, password: location.password,
                                 database: location.database, tls: .disable),
            id: 2, logger: Self.logger
        )
        defer { Task { try? await connection.close() } }
        let session = try await connection.query("""
            INSERT INTO rewind.sessions (app_id, app_version, action_schema_version, state_schema_version, codec, started_at, base_seq)
            VALUES ('com.example.todo', '1', 1, 1, 'binary', 0, 0) RETURNING id
            """, logger: Self.logger).collect().first!.decode(Int64.self)
        var actionIDs: [String: Int64] = [:], sourceIDs: [ActionSource: Int64] = [:]
        var cursor = log.events(pageSize: 10_000)
        while let event = try cursor.next() {
            if actionIDs[event.actionCase] == nil {
                actionIDs[event.actionCase] = try await connection.query(
                    "INSERT INTO rewind.actions (name) VALUES (\(event.actionCase)) RETURNING id", logger: Self.logger
                ).collect().first!.decode(Int64.self)
            }
            if sourceIDs[event.source] == nil {
                let source = event.source
                sourceIDs[source] = try await connection.query("""
                    INSERT INTO rewind.sources (file, function, line, "column", origin)
                    VALUES (\(source.file), \(source.function), \(Int64(source.line)), \(Int64(source.column)), \(source.origin.rawValue)) RETURNING id
                    """, logger: Self.logger).collect().first!.decode(Int64.self)
            }
        }
        let actions = actionIDs, sources = sourceIDs
        // postgres-nio quotes the table name whole, so the schema comes from the search path.
        _ = try await connection.query("SET search_path TO rewind", logger: Self.logger).collect()
        return try await ContinuousClock().measure {
            try await connection.copyFrom(
                table: "events", columns: ["session_id", "seq", "origin_seq", "time", "action_id", "payload", "source_id", "info", "redaction"],
                logger: Self.logger
            ) { writer in
                // COPY's text format, the payload's hex written straight into the buffer's memory
                // (bytea as \\x and hex digits from a table): the baseline must be bound by the
                // server, not by formatting.
                let hex = Array("0123456789abcdef".utf8)
                var cursor = log.events(pageSize: 10_000)
                var buffer = ByteBuffer()
                buffer.reserveCapacity(1 << 21)
                var seq: Int64 = 0
                while let event = try cursor.next() {
                    seq += 1
                    buffer.writeString("\(session)\t\(seq)\t\(event.seq)\t\(event.time)\t\(actions[event.actionCase]!)\t")
                    if let payload = event.payload {
                        buffer.writeString("\\\\x")
                        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: payload.count * 2) { bytes in
                            for (index, byte) in payload.enumerated() {
                                bytes[2 * index] = hex[Int(byte >> 4)]
                                bytes[2 * index + 1] = hex[Int(byte & 0x0f)]
                            }
                            return payload.count * 2
                        }
                    } else {
                        buffer.writeString("\\N")
                    }
                    buffer.writeString("\t\(sources[event.source]!)\t\\N\t\\N\n")
                    if buffer.readableBytes > 1 << 20 {
                        try await writer.write(buffer)
                        buffer.clear()
                    }
                }
                if buffer.readableBytes > 0 { try await writer.write(buffer) }
            }
        }.seconds
    }

    // MARK: - Record

    /// Shop actions dispatched through a store whose recorder (the default configuration)
    /// records into a log file, then into the store; actions per second until all are committed.
    private func record() async throws -> WorkloadResult {
        let actions = max(1, events / 5)
        let script = await Shop.sessionActions(count: actions, seed: seed)
        let app = AppIdentity(id: "com.example.shop")
        func dispatchAll(into destination: RecordingDestination) throws -> Double {
            let recorder = Recorder<ShopState, ShopAction>(into: destination, app: app)
            let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
            let seconds = try ContinuousClock().measure {
                for dispatched in script { store.dispatch(dispatched.action, from: dispatched.source) }
                try recorder.close()
            }.seconds
            return Double(script.count) / seconds
        }
        var file: [Double] = [], stored: [Double] = []
        for _ in 0..<runs {
            let path = TemporaryLog.path("record-file")
            file.append(try dispatchAll(into: .log(try EventLog(path: path))))
            TemporaryLog.remove(path)
            stored.append(try await withDatabase { location in try dispatchAll(into: try await .postgres(location, install: "bench")) })
        }
        let baseline = median(file)
        return WorkloadResult(
            name: "record, \(actions.formatted()) shop actions through the recorder (default configuration: JSON, buffered)",
            baseline: "the same recorder into a SQLite log file",
            variants: [
                .init(name: "into a log file (baseline)", value: baseline, unit: "actions/s", ratioToBaseline: 1, runs: file),
                .init(name: "into the PostgreSQL store", value: median(stored), unit: "actions/s", ratioToBaseline: median(stored) / baseline, runs: stored),
            ],
            notes: ["until every action is committed (close); the server shares the machine's cores"]
        )
    }

    // MARK: - Reading in place

    /// Replay of one pushed log read in place (`PostgresLogReader`), against the same log's file
    /// and against what reading by URL did before the reader: pull the log into a file, then
    /// replay that.
    private func read() async throws -> WorkloadResult {
        let count = max(1, events / 5)
        let logs = try await ReplayLogs(actions: count, large: false, seed: seed, codecs: ["binary"])
        defer { logs.remove() }
        let file = try EventLog(path: logs.byCodec[0].path, mode: .readOnly)
        let id = try file.identity()!
        let clock = ContinuousClock()
        return try await withDatabase { location in
            let store = try await PostgresLog.open(location)
            _ = try await store.push(file)
            var fromFile: [Double] = [], inPlace: [Double] = [], pulled: [Double] = []
            for _ in 0..<runs {
                fromFile.append(Double(count) / (try clock.measure {
                    _ = try Replayer(log: file, reducer: Todo.reducer).finalState(session: 1, fromStart: true)
                }.seconds))
                let reader = try await store.reader(id)
                inPlace.append(Double(count) / (try clock.measure {
                    _ = try Replayer(log: reader, reducer: Todo.reducer).finalState(session: 1, fromStart: true)
                }.seconds))
                let path = TemporaryLog.path("pulled")
                defer { TemporaryLog.remove(path) }
                pulled.append(Double(count) / (try await clock.measure {
                    _ = try await store.pull(.log(id), to: path)
                    _ = try Replayer(log: try EventLog(path: path, mode: .readOnly), reducer: Todo.reducer).finalState(session: 1, fromStart: true)
                }.seconds))
            }
            await store.close()
            let baseline = median(fromFile)
            return WorkloadResult(
                name: "read, replay of a pushed \(count.formatted())-action todo log (binary) from its initial state",
                baseline: "the same replay from the log file",
                variants: [
                    .init(name: "the log file (baseline)", value: baseline, unit: "actions/s", ratioToBaseline: 1, runs: fromFile),
                    .init(name: "the store, read in place", value: median(inPlace), unit: "actions/s", ratioToBaseline: median(inPlace) / baseline, runs: inPlace),
                    .init(name: "the store, pulled into a file first", value: median(pulled), unit: "actions/s", ratioToBaseline: median(pulled) / baseline, runs: pulled),
                ],
                notes: ["server and tool share the machine's \(ProcessInfo.processInfo.activeProcessorCount) cores"]
            )
        }
    }

    // MARK: - Fleet

    private func fleet() async throws -> [WorkloadResult] {
        let tool = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("rewind").path
        guard FileManager.default.isExecutableFile(atPath: tool) else {
            throw BenchError("the fleet workload runs \(tool): build it first (swift build -c release --product rewind)")
        }
        let path = TemporaryLog.path("fleet")
        defer { TemporaryLog.remove(path) }
        let log = try EventLog(path: path)
        for index in 0..<fleetSessions {
            let recorder = Recorder<ShopState, ShopAction>(log: log, app: AppIdentity(id: "com.example.shop"))
            let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
            for dispatched in await Shop.sessionActions(count: 100, seed: seed + UInt64(index)) {
                store.dispatch(dispatched.action, from: dispatched.source)
            }
            try await recorder.close()
        }
        let pushed = try await fleetPush(log)
        let questions = try await withDatabase { location in
            let store = try await PostgresLog.open(location)
            _ = try await store.push(log)
            await store.close()
            let url = "postgres://\(location.user):\(location.password ?? "")@\(location.host):\(location.port)/\(location.database)?sslmode=disable"
            var variants: [WorkloadResult.Variant] = []
            for question in [["verify"], ["bisect", "--invariant", "non-negative-total"]] {
                let file = try rate(tool, question + [path, "--all-sessions", "--jobs", "2"])
                variants.append(.init(name: "\(question[0]), the log file, 2 workers (baseline)", value: median(file), unit: "sessions/s", ratioToBaseline: 1, runs: file))
                for jobs in [1, 2, 4] {
                    let store = try rate(tool, question + [url, "--all-sessions", "--jobs", "\(jobs)"])
                    variants.append(.init(
                        name: "\(question[0]), the store, \(jobs) worker\(jobs == 1 ? "" : "s")", value: median(store), unit: "sessions/s",
                        ratioToBaseline: median(store) / median(file), runs: store
                    ))
                }
            }
            return [WorkloadResult(
                name: "fleet, \(fleetSessions.formatted()) shop sessions of 100 actions, rewind … --all-sessions",
                baseline: "the same question over the log file",
                variants: variants,
                notes: ["each run is a process: its start-up and the store's listing are included"]
            )]
        }
        return [pushed] + questions
    }

    /// The fleet's log pushed into a fresh store, each run: what a session costs beyond its
    /// events (its row, shapes, snapshot and commit), against `COPY` of the same events.
    private func fleetPush(_ log: EventLog) async throws -> WorkloadResult {
        let events = Double(try log.sessions().reduce(0) { $0 + $1.eventCount })
        var copy: [Double] = [], pushed: [Double] = []
        for _ in 0..<runs {
            copy.append(events / (try await withDatabase { location in try await copyRows(of: log, into: location) }))
            pushed.append(events / (try await pushSeconds(log)))
        }
        let baseline = median(copy)
        return WorkloadResult(
            name: "push, a fleet's log: \(fleetSessions.formatted()) shop sessions of 100 actions",
            baseline: "COPY FROM STDIN of the same rows (as one session)",
            variants: [
                .init(name: "COPY of the same rows (baseline)", value: baseline, unit: "events/s", ratioToBaseline: 1, runs: copy),
                .init(name: "rewind push, default batches", value: median(pushed), unit: "events/s", ratioToBaseline: median(pushed) / baseline, runs: pushed),
            ],
            notes: [String(format: "rewind push: %.0f sessions/s", median(pushed) * Double(fleetSessions) / events)]
        )
    }

    /// Sessions per second of `rewind ARGUMENTS`, `runs` times.
    private func rate(_ tool: String, _ arguments: [String]) throws -> [Double] {
        try (0..<runs).map { _ in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            let seconds = try ContinuousClock().measure {
                try process.run()
                process.waitUntilExit()
            }.seconds
            guard process.terminationStatus <= 1 else { throw BenchError("rewind \(arguments.joined(separator: " ")) failed (\(process.terminationStatus))") }
            return Double(fleetSessions) / seconds
        }
    }

    // MARK: - Databases

    /// Runs `body` with a fresh database on the server, dropped after.
    private func withDatabase<T>(_ body: (PostgresLocation) async throws -> T) async throws -> T {
        var location = server
        location.database = "rewind_bench_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await admin("CREATE DATABASE \(location.database)")
        do {
            let result = try await body(location)
            try await admin("DROP DATABASE \(location.database)")
            return result
        } catch {
            try? await admin("DROP DATABASE \(location.database)")
            throw error
        }
    }

    private func admin(_ sql: String) async throws {
        let connection = try await PostgresConnection.connect(
            configuration: .init(host: server.host, port: server.port, username: server.user, password: server.password, database: server.database, tls: .disable),
            id: 3, logger: Self.logger
        )
        _ = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: Self.logger).collect()
        try await connection.close()
    }
}

#endif
