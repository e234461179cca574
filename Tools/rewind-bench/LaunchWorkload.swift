import Foundation
import GRDBSQLite
import Rewind
import RewindExamples
import RewindLog

/// `launch`: what recording costs the thread that starts it, usually the main thread at launch —
/// opening the log, then creating the recorder, binding it to a store and dispatching the first
/// action — on a new file and on a log that already holds a session of the shop app; and the
/// same with `Recorder(at:)`, whose writer thread opens the log. Each
/// sample is its own log (nothing cached but the page cache), with the default configuration.
///
/// With `--launch-large-mb N`, two more rows launch on a log of about N MB that needs a
/// migration (the last: the log is built at the current schema, its events repeated until it is
/// large enough, then marked one version older), the old way and with `Recorder(at:)`; the
/// log is copied for each sample, untimed.
///
/// The baseline is the same store without a recorder: the store's own cost.
struct LaunchWorkload {
    var session: [DispatchedAction<ShopAction>]
    var samples: Int
    /// The size of the large log to launch on, in MB; 0 for none.
    var largeMegabytes = 0

    func measure() throws -> WorkloadResult {
        // An existing log to reopen: a session of the shop app, the length of a few days' use.
        let existing = TemporaryLog.path("launch-existing")
        defer { TemporaryLog.remove(existing) }
        do {
            let log = try EventLog(path: existing)
            let recorder = Recorder<ShopState, ShopAction>(log: log, app: AppIdentity(id: "com.example.shop", version: "1"))
            let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
            for dispatched in session { store.dispatch(dispatched.action, from: dispatched.source) }
            try recorder.close()
        }
        var storeAlone: [Double] = [], openNew: [Double] = [], bindNew: [Double] = [], openExisting: [Double] = [], bindExisting: [Double] = []
        var atNew: [Double] = [], atExisting: [Double] = []
        for sample in 0...samples {
            let alone = try time { Store(initialState: ShopState(), reducer: Shop.reducer).dispatch(session[0].action, from: session[0].source) }
            let fresh = TemporaryLog.path("launch-new")
            let (openedNew, boundNew) = try launch(at: fresh)
            TemporaryLog.remove(fresh)
            let copy = TemporaryLog.path("launch-copy")
            try FileManager.default.copyItem(atPath: existing, toPath: copy)
            let (openedOld, boundOld) = try launch(at: copy)
            TemporaryLog.remove(copy)
            let freshAt = TemporaryLog.path("launch-at-new")
            let recordedAtNew = try launchOpeningOnWriter(at: freshAt)
            TemporaryLog.remove(freshAt)
            let copyAt = TemporaryLog.path("launch-at-copy")
            try FileManager.default.copyItem(atPath: existing, toPath: copyAt)
            let recordedAtExisting = try launchOpeningOnWriter(at: copyAt)
            TemporaryLog.remove(copyAt)
            guard sample > 0 else { continue }  // the first is a warm-up
            storeAlone.append(alone)
            openNew.append(openedNew)
            bindNew.append(boundNew)
            openExisting.append(openedOld)
            bindExisting.append(boundOld)
            atNew.append(recordedAtNew)
            atExisting.append(recordedAtExisting)
        }
        let baseline = median(storeAlone)
        var rows: [(String, [Double])] = [
            ("store and first dispatch, no recorder (baseline)", storeAlone),
            ("new file: open the log", openNew),
            ("new file: recorder, store, first dispatch", bindNew),
            ("\(session.count)-action log: open the log", openExisting),
            ("\(session.count)-action log: recorder, store, first dispatch", bindExisting),
            ("new file, Recorder(at:): recorder, store, first dispatch (the writer opens it)", atNew),
            ("\(session.count)-action log, Recorder(at:): recorder, store, first dispatch", atExisting),
        ]
        if largeMegabytes > 0 { rows += try measureLarge(existing) }
        return WorkloadResult(
            name: "launch (on the calling thread: open a log, then create a recorder, bind it to a store and dispatch once; default configuration)",
            baseline: "a store without a recorder, and its first dispatch",
            variants: rows.map { name, runs in
                .init(name: name, value: median(runs), unit: "ms", ratioToBaseline: baseline > 0 ? median(runs) / baseline : nil, runs: runs)
            }
        )
    }

    /// Milliseconds to open the log at `path`, and to create a recorder into it, bind it and
    /// dispatch the first action (closed afterwards, untimed).
    private func launch(at path: String) throws -> (open: Double, bind: Double) {
        var log: EventLog?
        let open = try time { log = try EventLog(path: path) }
        var recorder: Recorder<ShopState, ShopAction>?
        var store: Store<ShopState, ShopAction>?
        let bind = try time {
            let created = Recorder<ShopState, ShopAction>(log: log!, app: AppIdentity(id: "com.example.shop", version: "1"))
            let bound = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: created.middleware)
            bound.dispatch(session[0].action, from: session[0].source)
            (recorder, store) = (created, bound)
        }
        _ = store
        try recorder?.close()
        return (open, bind)
    }

    /// Milliseconds to create a recorder that opens the log at `path` on its writer thread,
    /// bind it and dispatch the first action (closed afterwards, untimed).
    private func launchOpeningOnWriter(at path: String) throws -> Double {
        var recorder: Recorder<ShopState, ShopAction>?
        var store: Store<ShopState, ShopAction>?
        let bind = try time {
            let created = Recorder<ShopState, ShopAction>(at: path, app: AppIdentity(id: "com.example.shop", version: "1"))
            let bound = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: created.middleware)
            bound.dispatch(session[0].action, from: session[0].source)
            (recorder, store) = (created, bound)
        }
        _ = store
        try recorder?.close()
        return bind
    }

    /// The large log's rows: open it and bind on the calling thread, then `Recorder(at:)`.
    private func measureLarge(_ small: String) throws -> [(String, [Double])] {
        let large = TemporaryLog.path("launch-large")
        defer { TemporaryLog.remove(large) }
        let (megabytes, events) = try Self.grow(copyOf: small, into: large, megabytes: largeMegabytes)
        var open: [Double] = [], bind: [Double] = [], at: [Double] = [], writerReady: [Double] = []
        for sample in 0...min(samples, 5) {
            let copy = TemporaryLog.path("launch-large-copy")
            try FileManager.default.copyItem(atPath: large, toPath: copy)
            let (opened, bound) = try launch(at: copy)
            TemporaryLog.remove(copy)
            try FileManager.default.copyItem(atPath: large, toPath: copy)
            let start = ContinuousClock.now
            let recorded = try launchOpeningOnWriter(at: copy)
            let ready = (ContinuousClock.now - start).inMilliseconds
            TemporaryLog.remove(copy)
            guard sample > 0 else { continue }
            open.append(opened)
            bind.append(bound)
            at.append(recorded)
            writerReady.append(ready)
        }
        let name = String(format: "%.0f MB log (%d events) needing a migration", megabytes, events)
        // What the default retention does to it once recording runs (on the writer thread, a
        // step per commit from its first check): one sample, on a copy.
        let copy = TemporaryLog.path("launch-large-trim")
        try FileManager.default.copyItem(atPath: large, toPath: copy)
        defer { TemporaryLog.remove(copy) }
        let log = try EventLog(path: copy)
        var steps: [Double] = []
        var removed = 0
        var complete = false
        while !complete {
            var step = (removed: 0, isComplete: true)
            steps.append(try time { step = try log.trim(to: .default, removingAtMost: Retention.default.eventsPerStep) })
            removed += step.removed
            complete = step.isComplete || step.removed == 0
        }
        let left = Double((try FileManager.default.attributesOfItem(atPath: copy)[.size] as? Int) ?? 0) / 1_000_000
        try log.close()
        let trimmed = "\(removed) events in \(steps.count) steps, \(String(format: "%.1f", left)) MB left"
        return [
            ("\(name): a step of trimming to Retention.default (writer thread; \(trimmed))", steps),
            ("\(name): all steps (\(trimmed))", [steps.reduce(0, +)]),
            ("\(name): open the log (migrates)", open),
            ("\(name): recorder, store, first dispatch", bind),
            ("\(name), Recorder(at:): recorder, store, first dispatch", at),
            ("\(name), Recorder(at:): until closed (untimed above: the writer opens, migrates, writes)", writerReady),
        ]
    }

    /// Copies the log at `small` to `large`, repeats its events and periodic snapshots (new seqs, the same session)
    /// until the file holds about `megabytes`, and marks it one schema version older, so that
    /// opening it runs the newest migration. Returns its size in MB and its events.
    static func grow(copyOf small: String, into large: String, megabytes: Int) throws -> (megabytes: Double, events: Int) {
        try FileManager.default.copyItem(atPath: small, toPath: large)
        var db: OpaquePointer?
        guard sqlite3_open_v2(large, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db else { throw RecordWorkload.RawError.open }
        defer { sqlite3_close(db) }
        func execute(_ sql: String) throws {
            guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
                throw BenchError("growing the launch log: \(String(cString: sqlite3_errmsg(db)))")
            }
        }
        func count(_ sql: String) throws -> Int {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else {
                throw BenchError("growing the launch log: \(String(cString: sqlite3_errmsg(db)))")
            }
            defer { sqlite3_finalize(statement) }
            return sqlite3_step(statement) == SQLITE_ROW ? Int(sqlite3_column_int64(statement, 0)) : 0
        }
        func size() -> Double {
            Double((try? FileManager.default.attributesOfItem(atPath: large)[.size] as? Int) ?? 0) / 1_000_000
        }
        while case let current = size(), current < Double(megabytes) {
            // Doubling, or the part of the events that reaches the size (seqs run from 1).
            let fraction = min(1, (Double(megabytes) - current) / current)
            let offset = try count("SELECT max(seq) FROM events")
            try execute("""
                INSERT INTO events (seq, session_id, time, action_id, payload, source_id, info, redaction)
                SELECT seq + (SELECT max(seq) FROM events), session_id, time, action_id, payload, source_id, info, redaction
                FROM events WHERE seq <= 1 + \(fraction) * (SELECT max(seq) FROM events)
                """)
            try execute("""
                INSERT INTO snapshots (session_id, seq, time, kind, state, compression)
                SELECT session_id, seq + \(offset), time, kind, state, compression FROM snapshots
                WHERE kind = 'periodic' AND seq + \(offset) <= (SELECT max(seq) FROM events)
                """)
            try execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        try execute("""
            UPDATE sessions SET last_seq = (SELECT max(seq) FROM events), end_seq = (SELECT max(seq) FROM events),
                event_count = (SELECT count(*) FROM events)
            """)
        let version = try Int(EventLog(path: small, mode: .readOnly).schemaVersion())
        try execute("DELETE FROM schema_migrations WHERE version = \(version); PRAGMA user_version = \(version - 1)")
        try execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let events = try count("SELECT count(*) FROM events")
        return (size(), events)
    }

    private func time(_ body: () throws -> Void) throws -> Double {
        let start = ContinuousClock.now
        try body()
        return (ContinuousClock.now - start).inMilliseconds
    }
}

extension Duration {
    var inMilliseconds: Double {
        Double(components.seconds) * 1_000 + Double(components.attoseconds) / 1e15
    }
}
