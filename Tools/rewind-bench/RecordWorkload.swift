import Foundation
import GRDBSQLite
import Rewind
import RewindExamples
import RewindLog

/// `record` and `size`: what the recorder commits to disk per second, per codec, against the
/// raw SQLite C API inserting the same encoded rows in the same batch size; and the bytes each
/// event takes on disk.
///
/// The recorder's figure includes encoding and everything else it does (case names, sources,
/// group commit); the baseline inserts rows encoded beforehand, so the ratio is what recording
/// costs beyond SQLite itself. No periodic snapshots on either side. Beside the JSON rows, the
/// middleware an app would write by hand (``HandWrittenRecorder``), against the same baseline.
struct RecordWorkload {
    var session: [DispatchedAction<ShopAction>]
    var actions: Int
    var batchSize: Int
    var runs: Int
    var codecs: [String]

    func measure() throws -> (throughput: WorkloadResult, size: WorkloadResult) {
        var variants: [WorkloadResult.Variant] = []
        var sizes: [WorkloadResult.Variant] = []
        var notes: [String] = []
        for codec in [JSONPayloadCodec() as any PayloadCodec, BinaryPayloadCodec()] where codecs.contains(codec.name) {
            var rawRates: [Double] = [], manyRates: [Double] = [], recorderRates: [Double] = [], appendRates: [Double] = [], bytes: [Double] = []
            var rawCPU: [Double] = [], writerCPU: [Double] = [], checkingCPU: [Double] = []
            for run in 0...runs {
                let raw = try rawInsert(codec: codec)
                let many = try rawInsert(codec: codec, rowsPerStatement: Self.rowsPerStatement)
                let recorded = try record(codec: codec)
                let appended = try appendDirectly(codec: codec)
                let checking = codec.name == "json" ? try record(codec: codec, checkingInvariant: true) : nil
                guard run > 0 else { continue }
                if let checking { checkingCPU.append(checking.writerCPUPerThousand) }
                rawRates.append(raw.rate)
                manyRates.append(many.rate)
                rawCPU.append(raw.cpuPerThousand)
                recorderRates.append(recorded.rate)
                appendRates.append(appended)
                writerCPU.append(recorded.writerCPUPerThousand)
                bytes.append(recorded.bytesPerEvent)
            }
            let raw = median(rawRates), recorded = median(recorderRates)
            variants.append(.init(name: "raw sqlite3_* inserts, \(codec.name) rows (baseline)", value: raw, unit: "rows/s", ratioToBaseline: 1, runs: rawRates))
            variants.append(.init(name: "recorder, \(codec.name), committed", value: recorded, unit: "actions/s", ratioToBaseline: recorded / raw, runs: recorderRates))
            // The same rows several to a statement, as the recorder inserts them (`EventRows`):
            // SQLite's own limit for this table, beside the baseline a one-row loop sets.
            let many = median(manyRates)
            variants.append(.init(
                name: "raw sqlite3_* inserts, \(codec.name) rows, \(Self.rowsPerStatement) a statement", value: many, unit: "rows/s", ratioToBaseline: many / raw, runs: manyRates
            ))
            // Rewind's own append API writing the same actions in the same batches (encoding
            // included, as the recorder's): what the recorder adds beyond the appends it performs.
            let appended = median(appendRates)
            variants.append(.init(name: "EventLog.append, \(codec.name), \(batchSize) per call", value: appended, unit: "actions/s", ratioToBaseline: appended / raw, runs: appendRates))
            notes.append(String(format: "%@: the recorder commits %.2f× what EventLog.append does with the same batches (runs: %@)", codec.name, recorded / appended,
                                zip(recorderRates, appendRates).map { String(format: "%.2f", $0 / $1) }.joined(separator: ", ")))
            // CPU per 1,000 rows: the raw loop's thread against the recorder's writer thread
            // (the process's CPU time less the dispatching thread's). The ratio is inverted
            // (baseline ÷ writer) so that, like the throughput rows, higher is better.
            let rawMilliseconds = median(rawCPU), writerMilliseconds = median(writerCPU)
            variants.append(.init(name: "CPU per 1,000: raw inserts, \(codec.name)", value: rawMilliseconds, unit: "ms", ratioToBaseline: 1, runs: rawCPU))
            variants.append(.init(name: "CPU per 1,000: recorder's writer, \(codec.name)", value: writerMilliseconds, unit: "ms",
                                  ratioToBaseline: rawMilliseconds / writerMilliseconds, runs: writerCPU))
            if !checkingCPU.isEmpty {
                // The writer's cost of an invariant checked in the field: its shadow fold (the
                // shop's reducer again) and the check, per action (FieldInvariants).
                let checking = median(checkingCPU)
                variants.append(.init(name: "CPU per 1,000: recorder's writer, \(codec.name), an invariant checked (shadow fold)", value: checking,
                                      unit: "ms", ratioToBaseline: rawMilliseconds / checking, runs: checkingCPU))
            }
            if codec.name == "json" {
                // What an app would write by hand (JSON with Foundation, GRDB), against the same baseline.
                let (handWritten, handWrittenRates) = try medianThroughput(actions: actions, runs: runs) { try self.handWritten() }
                variants.append(.init(
                    name: "hand-written: JSONEncoder + GRDB, \(Self.handWrittenBatch)/transaction", value: handWritten, unit: "actions/s",
                    ratioToBaseline: handWritten / raw, runs: handWrittenRates
                ))
            }
            sizes.append(.init(name: "\(codec.name)", value: median(bytes), unit: "bytes/event", ratioToBaseline: nil, runs: bytes))
        }
        let throughput = WorkloadResult(
            name: "record (\(actions) shop actions, \(batchSize) per transaction, WAL, synchronous=FULL)",
            baseline: "the raw C API inserting the same encoded rows (each codec's ratio is to its own baseline)",
            variants: variants,
            notes: notes
        )
        let jsonSize = sizes.first?.value ?? 1
        let size = WorkloadResult(
            name: "size (bytes of log file per event, shop actions, no periodic snapshots)",
            baseline: "json",
            variants: sizes.map { variant in
                var variant = variant
                variant.ratioToBaseline = variant.value / jsonSize
                return variant
            }
        )
        return (throughput, size)
    }

    /// Dispatches every action through a store with the recorder and waits until all are
    /// committed; returns actions per second, the writer thread's CPU milliseconds per 1,000
    /// actions and bytes per event on disk.
    private func record(codec: any PayloadCodec, checkingInvariant: Bool = false) throws -> (rate: Double, writerCPUPerThousand: Double, bytesPerEvent: Double) {
        let path = TemporaryLog.path("record")
        defer { TemporaryLog.remove(path); try? FileManager.default.removeItem(atPath: path + "-reports") }
        var configuration = RecorderConfiguration<ShopState, ShopAction>()
        configuration.codec = codec
        configuration.snapshotInterval = 0
        configuration.batchSize = batchSize
        if checkingInvariant {
            configuration.reports = ReportOptions(key: try ReportKey.generate(id: "bench").publicKey)
            configuration.invariants = FieldInvariants(reducer: Shop.reducer, [Shop.nonNegativeTotal])
        }
        return try Self.recordCommitted(session, actions: actions, into: path, configuration: configuration)
    }

    /// Appends the same actions (the session, cycled) to a new log through `EventLog.append`,
    /// `batchSize` a call, one session, no snapshots but the initial one; returns actions per
    /// second. The records are made before the clock starts, as the recorder's items are made
    /// on the dispatching thread.
    private func appendDirectly(codec: any PayloadCodec) throws -> Double {
        let path = TemporaryLog.path("append")
        defer { TemporaryLog.remove(path) }
        let log = try EventLog(path: path)
        defer { try? log.close() }
        let session = try log.beginSession(app: AppIdentity(id: "com.example.shop"), codec: codec, initialState: ShopState())
        let now = Date()
        let records = (0..<actions).map { index in
            let dispatched = self.session[index % self.session.count]
            return EventRecord(dispatched.action, source: dispatched.source, time: now)
        }
        let batches = stride(from: 0, to: records.count, by: batchSize).map { Array(records[$0..<min($0 + batchSize, records.count)]) }
        let elapsed = try ContinuousClock().measure {
            for batch in batches { _ = try log.append(batch, to: session) }
        }
        return Double(actions) / elapsed.seconds
    }

    /// Dispatches `actions` of `session` (cycled) through a store with a recorder configured by
    /// `configuration`, recording into a new log at `path` with `keys`, and waits until all are
    /// committed; returns actions per second, the writer thread's CPU milliseconds per 1,000
    /// actions and bytes per event on disk.
    static func recordCommitted(
        _ session: [DispatchedAction<ShopAction>], actions: Int, into path: String,
        configuration: RecorderConfiguration<ShopState, ShopAction>, keys: LogKeys = LogKeys()
    ) throws -> (rate: Double, writerCPUPerThousand: Double, bytesPerEvent: Double) {
        let log = try EventLog(path: path, keys: keys)
        let recorder = Recorder<ShopState, ShopAction>(log: log, app: AppIdentity(id: "com.example.shop"), configuration: configuration)
        let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
        let (processStart, threadStart) = (CPUTime.process, CPUTime.thread)
        let elapsed = try ContinuousClock().measure {
            for index in 0..<actions {
                let dispatched = session[index % session.count]
                store.dispatch(dispatched.action, from: dispatched.source)
            }
            try recorder.flush()
        }
        let writerCPU = (CPUTime.process - processStart) - (CPUTime.thread - threadStart)
        try recorder.close()
        try log.close()
        return (Double(actions) / elapsed.seconds, writerCPU * 1e6 / Double(actions), Double(TemporaryLog.size(path)) / Double(actions))
    }

    /// Rows per transaction of the hand-written middleware: the recorder's default batch.
    static let handWrittenBatch = RecorderConfiguration<ShopState, ShopAction>().batchSize

    /// Dispatches every action through a store with ``HandWrittenRecorder`` and commits the
    /// rest at the end.
    private func handWritten() throws {
        let path = TemporaryLog.path("hand-written")
        defer { TemporaryLog.remove(path) }
        let recorder = try HandWrittenRecorder<ShopState, ShopAction>(path: path, batchSize: Self.handWrittenBatch)
        let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
        for index in 0..<actions {
            let dispatched = session[index % session.count]
            store.dispatch(dispatched.action, from: dispatched.source)
        }
        try recorder.flush()
    }

    /// Rows a statement in the many-rows raw variant: as many as the recorder puts in one.
    static let rowsPerStatement = 32

    /// Inserts the same rows, encoded beforehand, through sqlite3_* directly, `rowsPerStatement`
    /// a statement (the rest of a batch one a statement); returns rows per second and CPU
    /// milliseconds per 1,000 rows.
    private func rawInsert(codec: any PayloadCodec, rowsPerStatement: Int = 1) throws -> (rate: Double, cpuPerThousand: Double) {
        let path = TemporaryLog.path("raw")
        defer { TemporaryLog.remove(path) }
        // The same schema, a session and a source row, made the ordinary way.
        let log = try EventLog(path: path)
        let sessionID = try log.beginSession(app: AppIdentity(id: "com.example.shop"), codec: codec, initialState: ShopState()).id
        try log.append([EventRecord(session[0].action, source: session[0].source)], to: log.sessions()[0])
        try log.close()
        let rows = try session.map { (ActionCaseName.of($0.action), try codec.encode($0.action)) }

        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db else { throw RawError.open }
        defer { sqlite3_close(db) }
        sqlite3_exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL", nil, nil, nil)
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        // Each case path's row in `actions`, made beforehand like the encoded payloads.
        var actionIDs: [String: Int64] = [:]
        var intern: OpaquePointer?
        defer { sqlite3_finalize(intern) }
        guard sqlite3_prepare_v2(db, "INSERT INTO actions (name) VALUES (?) ON CONFLICT (name) DO UPDATE SET name = name RETURNING id", -1, &intern, nil) == SQLITE_OK else {
            throw RawError.prepare
        }
        for name in Set(rows.map(\.0)) {
            sqlite3_bind_text(intern, 1, name, -1, transient)
            guard sqlite3_step(intern) == SQLITE_ROW else { throw RawError.step }
            actionIDs[name] = sqlite3_column_int64(intern, 0)
            sqlite3_reset(intern)
        }
        let encodedRows = rows.map { (actionIDs[$0.0]!, $0.1) }
        func prepare(rows: Int) throws -> OpaquePointer {
            var statement: OpaquePointer?
            let sql = "INSERT INTO events (session_id, time, action_id, payload, source_id, info, redaction) VALUES "
                + repeatElement("(?, ?, ?, ?, 1, NULL, NULL)", count: rows).joined(separator: ", ")
            guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { throw RawError.prepare }
            return statement
        }
        let one = try prepare(rows: 1), many = try prepare(rows: rowsPerStatement)
        defer { sqlite3_finalize(one); sqlite3_finalize(many) }
        let start = ContinuousClock.now
        let cpuStart = CPUTime.thread
        var inserted = 0
        while inserted < actions {
            sqlite3_exec(db, "BEGIN", nil, nil, nil)
            var left = min(batchSize, actions - inserted)
            while left > 0 {
                let rows = left >= rowsPerStatement ? rowsPerStatement : 1
                let statement = rows == 1 ? one : many
                for row in 0..<rows {
                    let (actionID, payload) = encodedRows[inserted % encodedRows.count]
                    let first = Int32(row * 4)
                    sqlite3_bind_int64(statement, first + 1, sessionID)
                    sqlite3_bind_double(statement, first + 2, 1_767_258_000 + Double(inserted))
                    sqlite3_bind_int64(statement, first + 3, actionID)
                    payload.withUnsafeBytes { bytes in
                        if codec.isText {
                            _ = sqlite3_bind_text(statement, first + 4, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count), transient)
                        } else {
                            _ = sqlite3_bind_blob(statement, first + 4, bytes.baseAddress, Int32(bytes.count), transient)
                        }
                    }
                    inserted += 1
                }
                guard sqlite3_step(statement) == SQLITE_DONE else { throw RawError.step }
                sqlite3_reset(statement)
                left -= rows
            }
            sqlite3_exec(db, "COMMIT", nil, nil, nil)
        }
        let cpu = CPUTime.thread - cpuStart
        return (Double(actions) / (ContinuousClock.now - start).seconds, cpu * 1e6 / Double(actions))
    }

    enum RawError: Error { case open, prepare, step }
}
