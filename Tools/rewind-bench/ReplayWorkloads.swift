import Foundation
import Synchronization
import GRDBSQLite
import Rewind
import RewindExamples
import RewindLog
import RewindReplay

/// The logs the replay, seek and memory workloads read: a scripted todo session (the todo
/// state stays a few KB however long the session, so snapshots stay small) recorded with each
/// codec at the default snapshot interval, and with `--large` a 10,000,000-event binary log.
struct ReplayLogs {
    var byCodec: [(codec: String, path: String, actions: Int)] = []
    var large: (path: String, actions: Int)?
    /// The recorded actions, in memory: what the logs hold.
    var session: [TodoAction]

    init(actions: Int, large: Bool, seed: UInt64, codecs: [String]) async throws {
        let session = await Todo.sessionActions(count: actions, seed: seed)
        self.session = session.map(\.action)
        for codec in [JSONPayloadCodec() as any PayloadCodec, BinaryPayloadCodec()] where codecs.contains(codec.name) {
            byCodec.append((codec.name, try Self.record(session, count: actions, codec: codec), actions))
        }
        if large {
            let count = 10_000_000
            self.large = (try Self.record(session, count: count, codec: BinaryPayloadCodec()), count)
        }
    }

    /// Records `count` actions (the session, cycled) through a store with the recorder.
    private static func record(_ session: [DispatchedAction<TodoAction>], count: Int, codec: any PayloadCodec) throws -> String {
        let path = TemporaryLog.path("replay-\(codec.name)")
        let log = try EventLog(path: path)
        var configuration = RecorderConfiguration<TodoState, TodoAction>()
        configuration.codec = codec
        // Every event kept: the default retention (a phone's, about 4 MB of payloads) would trim
        // a million events to their last few tens of thousands, and replay, seek and memory
        // would measure those while counting a million.
        configuration.retention = nil
        let recorder = Recorder<TodoState, TodoAction>(log: log, app: AppIdentity(id: "com.example.todo"), configuration: configuration)
        let store = Store(initialState: TodoState(), reducer: Todo.reducer, middleware: recorder.middleware)
        for index in 0..<count {
            let dispatched = session[index % session.count]
            store.dispatch(dispatched.action, from: dispatched.source)
        }
        try recorder.close()
        try Self.requireWhole(log, holding: count)
        try log.close()
        return path
    }

    /// Fails unless `log` holds `count` events, from seq 1: a workload that replays a log
    /// divides by the actions it recorded.
    static func requireWhole(_ log: EventLog, holding count: Int) throws {
        let range = try log.seqRange()
        guard range?.lowerBound == 1, range?.count == count else {
            throw BenchError("\(log.path) holds seqs \(range.map { "\($0)" } ?? "none"), not 1...\(count): a workload's log must keep every event it recorded")
        }
    }

    func remove() {
        for entry in byCodec { TemporaryLog.remove(entry.path) }
        if let large { TemporaryLog.remove(large.path) }
    }
}

/// `replay`: actions per second folded from disk to the final state, per codec, against what
/// SQLite itself reads: stepping over the same rows through the C API, touching each payload,
/// decoding nothing. Between the two, the bound replay works against: reading the same rows
/// through Rewind's read path and decoding them, without folding. A last line folds the same
/// actions in memory: the reducer's own cost, which replay adds to the bound (replay time ≈
/// bound time + fold time).
struct ReplayWorkload {
    var logs: ReplayLogs
    var runs: Int

    func measure() throws -> WorkloadResult {
        var variants: [WorkloadResult.Variant] = []
        var notes: [String] = []
        var bounds: [String: (median: Double, all: [Double])] = [:]
        for (codecName, path, actions) in logs.byCodec {
            let log = try EventLog(path: path, mode: .readOnly)
            let reader = try SessionReader(log: log, session: log.session(1))
            let replayer = Replayer(log: log, reducer: Todo.reducer)
            // The same read path replay uses (raw statement, payloads decoded in place), minus the fold.
            // A long walk reads ahead on a second core, so the process's CPU time per action is
            // reported beside the wall time: what a replay costs the machine, not only how soon it ends.
            var cpuBefore = CPUTime.process
            let bound = try medianThroughput(actions: actions, runs: runs) {
                try reader.forEachAction(TodoAction.self, from: 1, through: Int64(actions)) { _, action in
                    blackHole(action)
                    return .continue
                }
            }
            let boundCPU = (CPUTime.process - cpuBefore) / Double(actions * (runs + 1))
            cpuBefore = CPUTime.process
            let replay = try medianThroughput(actions: actions, runs: runs) {
                blackHole(try replayer.finalState(session: 1, fromStart: true))
            }
            let replayCPU = (CPUTime.process - cpuBefore) / Double(actions * (runs + 1))
            notes.append(String(format: "%@: CPU per action (process, over the warm-up and runs): read + decode %.0f ns (wall %.0f ns at the median), replay %.0f ns (wall %.0f ns)",
                                codecName, boundCPU * 1e9, 1e9 / bound.median, replayCPU * 1e9, 1e9 / replay.median))
            let raw = try medianThroughput(actions: actions, runs: runs) { try Self.stepRaw(path) }
            variants.append(.init(name: "\(codecName): sqlite3_step, no decoding (baseline)", value: raw.median, unit: "rows/s", ratioToBaseline: 1, runs: raw.all))
            variants.append(.init(name: "\(codecName): read + decode, no fold (bound)", value: bound.median, unit: "actions/s",
                                  ratioToBaseline: bound.median / raw.median, runs: bound.all))
            variants.append(.init(name: "\(codecName): replay to the final state", value: replay.median, unit: "actions/s",
                                  ratioToBaseline: replay.median / raw.median, runs: replay.all))
            notes.append(String(format: "%@: replay is %.2f× its read + decode bound", codecName, replay.median / bound.median))
            bounds[codecName] = bound
        }
        if let json = bounds["json"], let binary = bounds["binary"] {
            // The default codec's replay against binary's (issue target: within 3×, so ≥ 0.33×),
            // run by run as well as by medians.
            let perRun = zip(json.all, binary.all).map { $0 / $1 }
            variants.append(.init(name: "json read + decode against binary's (the default codec against the fastest)", value: json.median / binary.median,
                                  unit: "× binary", ratioToBaseline: nil, runs: perRun))
            notes.append(String(format: "json: read + decode takes %.1f× binary's time", binary.median / json.median))
        }
        let actions = logs.session
        let fold = medianThroughput(actions: actions.count, runs: runs) {
            var state = TodoState()
            for action in actions { Todo.reducer(&state, action) }
            blackHole(state)
        }
        variants.append(.init(name: "reducer alone: same actions folded in memory", value: fold.median, unit: "actions/s",
                              ratioToBaseline: nil, runs: fold.all))
        return WorkloadResult(
            name: "replay (\(logs.byCodec.first?.actions ?? 0) todo actions from disk, from the session's start)",
            baseline: "SQLite stepping over the same rows, decoding nothing (each codec's ratios are to its own)",
            variants: variants,
            notes: notes
        )
    }

    /// Steps over the session's events through the C API, touching every payload's bytes.
    static func stepRaw(_ path: String) throws {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db else { throw RecordWorkload.RawError.open }
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, "SELECT seq, payload FROM events WHERE session_id = 1 ORDER BY seq", -1, &statement, nil) == SQLITE_OK else {
            throw RecordWorkload.RawError.prepare
        }
        defer { sqlite3_finalize(statement) }
        var checksum = 0
        while sqlite3_step(statement) == SQLITE_ROW {
            let bytes = sqlite3_column_blob(statement, 1)
            let count = Int(sqlite3_column_bytes(statement, 1))
            checksum &+= Int(sqlite3_column_int64(statement, 0)) &+ count
            if let bytes, count > 0 { checksum &+= Int(bytes.load(fromByteOffset: count - 1, as: UInt8.self)) }
        }
        blackHole(checksum)
    }
}

/// `seek`: `state(at:)` at random seqs, from the nearest snapshot (default interval).
struct SeekWorkload {
    var logs: ReplayLogs
    var seeks: Int

    func measure() throws -> WorkloadResult {
        var variants: [WorkloadResult.Variant] = []
        var targets = logs.byCodec.map { ("\($0.codec), \($0.actions) events", $0.path) }
        if let large = logs.large { targets.append(("binary, \(large.actions) events", large.path)) }
        for (name, path) in targets {
            let log = try EventLog(path: path, mode: .readOnly)
            let replayer = Replayer(log: log, reducer: Todo.reducer)
            let last = try log.seqRange()!.upperBound
            var random = SeededRandom(seed: 3)
            var times: [Double] = []
            blackHole(try replayer.state(at: last))
            for _ in 0..<seeks {
                let seq = Int64(1 + random.int(below: Int(last)))
                times.append(try ContinuousClock().measure { blackHole(try replayer.state(at: seq)) }.seconds * 1_000)
            }
            times.sort()
            variants.append(.init(name: "\(name): median", value: percentile(times, 0.5), unit: "ms", ratioToBaseline: nil, runs: []))
            variants.append(.init(name: "\(name): worst", value: times.last ?? 0, unit: "ms", ratioToBaseline: nil, runs: []))
        }
        return WorkloadResult(name: "seek (state(at:) at \(seeks) random seqs, the default snapshot configuration)", baseline: "—", variants: variants)
    }
}

/// `memory`: peak resident memory while replaying the largest log from its start, above the
/// resident size when the replay began (Linux: VmHWM, reset through /proc/self/clear_refs).
struct MemoryWorkload {
    var logs: ReplayLogs

    func measure() throws -> WorkloadResult {
        let (path, actions) = logs.large ?? (logs.byCodec.last!.path, logs.byCodec.last!.actions)
        let log = try EventLog(path: path, mode: .readOnly)
        MemoryPeak.reset()
        let resident = MemoryPeak.bytes
        let elapsed = try ContinuousClock().measure {
            blackHole(try Replayer(log: log, reducer: Todo.reducer).finalState(session: 1, fromStart: true))
        }
        let growth = Double(MemoryPeak.bytes - resident) / 1_048_576
        return WorkloadResult(
            name: "memory (replaying \(actions) events from the start, binary)",
            baseline: "resident size when the replay began",
            variants: [.init(name: "peak growth", value: growth, unit: "MiB", ratioToBaseline: nil, runs: [])],
            notes: MemoryPeak.isAvailable
                ? [String(format: "resident at the start: %.1f MiB; the replay took %.1f s", Double(resident) / 1_048_576, elapsed.seconds)]
                : ["peak memory is measured on Linux only"]
        )
    }
}

/// The process's peak resident memory, resettable (Linux).
enum MemoryPeak {
    static var isAvailable: Bool { FileManager.default.fileExists(atPath: "/proc/self/status") }

    static func reset() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    /// The peak of all resident memory, code and other file-backed pages included.
    static var bytes: Int { status("VmHWM:") }

    /// Anonymous resident memory now: the heap, stacks and other pages no file backs. What
    /// an Apple platform counts in an app's footprint is of this kind (dirty memory); the
    /// clean pages of code that `bytes` also counts can be dropped and read again.
    static var anonymousBytes: Int { status("RssAnon:") }

    private static func status(_ field: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kilobytes * 1_024
    }

    /// The highest `anonymousBytes` while `body` runs, sampled every millisecond by a thread
    /// of its own (Linux keeps no peak of it): a lower bound of the true peak, which a
    /// sample can miss by what was allocated and freed within a millisecond.
    static func anonymousPeak<T>(during body: () throws -> T) rethrows -> (result: T, peak: Int) {
        let peak = Mutex(anonymousBytes)
        let done = Atomic(false)
        let sampler = Thread {
            while !done.load(ordering: .acquiring) {
                let now = anonymousBytes
                peak.withLock { $0 = max($0, now) }
                usleep(1_000)
            }
        }
        sampler.start()
        defer { done.store(true, ordering: .releasing) }
        let result = try body()
        let last = anonymousBytes
        return (result, peak.withLock { max($0, last) })
    }
}
