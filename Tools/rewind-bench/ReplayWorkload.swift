import Foundation
import Rewind
import RewindExamples
import RewindLog
import RewindReplay

/// `replay`: folding a long log from disk, against reading and decoding it without folding.
///
/// The log is a scripted todo session of `actions` actions recorded through the recorder (the
/// todo state stays a few KB however long the session; the shop's order history would make
/// every snapshot larger). Reported: the fold's throughput and its ratio to the
/// read-and-decode bound, the time to reach the last seq with and without periodic
/// snapshots, random `state(at:)` seeks, and the peak resident memory during the full replay.
struct ReplayWorkload {
    var actions: Int
    var runs: Int
    var seeks: Int

    func measure() async throws -> WorkloadResult {
        let clock = ContinuousClock()
        // The session is only needed to record the logs: let it go before measuring memory.
        let (withSnapshots, withoutSnapshots) = try await {
            let session = await Todo.sessionActions(count: actions, seed: 11)
            return (
                try record(session, snapshotInterval: RecorderConfiguration<TodoAction>().snapshotInterval),
                try record(session, snapshotInterval: 0)
            )
        }()
        defer {
            for path in [withSnapshots, withoutSnapshots] {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            }
        }
        let log = try EventLog(path: withSnapshots, mode: .readOnly)
        let bare = try EventLog(path: withoutSnapshots, mode: .readOnly)
        let replayer = Replayer(log: log, reducer: Todo.reducer)
        let last = try log.seqRange()!.upperBound
        let codec = JSONPayloadCodec()

        // The bound: read every row and decode its action, without folding.
        var boundRates: [Double] = []
        var foldRates: [Double] = []
        var peakGrowth: [Int] = []
        for _ in 0...runs {
            let bound = try clock.measure {
                var cursor = log.events(pageSize: 4_096)
                var count = 0
                while let event = try cursor.next() {
                    blackHole(try event.decodeAction(as: TodoAction.self, codec: codec, path: log.path))
                    count += 1
                }
                precondition(count == actions)
            }
            // Folding from the session's start: the log without periodic snapshots.
            MemoryPeak.reset()
            let resident = MemoryPeak.bytes
            let fold = try clock.measure { blackHole(try Replayer(log: bare, reducer: Todo.reducer).finalState(session: 1)) }
            peakGrowth.append(MemoryPeak.bytes - resident)
            boundRates.append(Double(actions) / bound.seconds)
            foldRates.append(Double(actions) / fold.seconds)
        }
        boundRates.removeFirst(); foldRates.removeFirst(); peakGrowth.removeFirst()

        let toLastWith = try medianDuration(runs) { blackHole(try replayer.state(at: last)) }
        var random = SeededRandom(seed: 3)
        var seekTimes: [Double] = []
        for _ in 0..<seeks {
            let seq = Int64(1 + random.int(below: Int(last)))
            seekTimes.append(try clock.measure { blackHole(try replayer.state(at: seq)) }.seconds)
        }
        seekTimes.sort()

        let bound = median(boundRates), fold = median(foldRates)
        // Without periodic snapshots, reaching the last seq is the full fold just measured.
        let toLastWithout = Double(actions) / fold
        return WorkloadResult(
            name: "replay (\(actions) todo actions from disk, JSON)",
            baseline: "reading and decoding every row, no fold",
            variants: [
                .init(name: "read + decode (bound)", actionsPerSecond: bound, ratioToBaseline: 1, runsActionsPerSecond: boundRates),
                .init(name: "replay from the start to the final state", actionsPerSecond: fold, ratioToBaseline: fold / bound, runsActionsPerSecond: foldRates),
            ],
            notes: [
                String(format: "state(at: last seq) with snapshots every 1,000: %.1f ms (median)", toLastWith * 1_000),
                String(format: "state(at: last seq) without periodic snapshots: %.0f ms (median)", toLastWithout * 1_000),
                String(format: "state(at: random seq), %d seeks: median %.1f ms, worst %.1f ms", seeks, seekTimes[seekTimes.count / 2] * 1_000, seekTimes.last! * 1_000),
                MemoryPeak.isAvailable
                    ? String(format: "peak resident memory during the full replay: %.1f MiB above the resident size at its start (median)", Double(peakGrowth.sorted()[peakGrowth.count / 2]) / 1_048_576)
                    : "peak resident memory: not measured on this platform",
            ]
        )
    }

    private func record(_ session: [DispatchedAction<TodoAction>], snapshotInterval: Int) throws -> String {
        let path = NSTemporaryDirectory() + "rewind-bench-replay-\(UUID().uuidString).rewind"
        let log = try EventLog(path: path)
        var configuration = RecorderConfiguration<TodoAction>()
        configuration.snapshotInterval = snapshotInterval
        let recorder = Recorder<TodoState, TodoAction>(log: log, app: AppIdentity(id: "com.example.todo"), configuration: configuration)
        let store = Store(initialState: TodoState(), reducer: Todo.reducer, middleware: recorder.middleware)
        for dispatched in session { store.dispatch(dispatched.action, from: dispatched.source) }
        try recorder.close()
        try log.close()
        return path
    }

    private func medianDuration(_ runs: Int, _ body: () throws -> Void) throws -> Double {
        let clock = ContinuousClock()
        try body()
        var times: [Double] = []
        for _ in 0..<runs { times.append(try clock.measure(body).seconds) }
        return median(times)
    }
}

/// The process's peak resident memory, resettable (Linux: /proc/self/status VmHWM, reset
/// through /proc/self/clear_refs).
enum MemoryPeak {
    static var isAvailable: Bool { FileManager.default.fileExists(atPath: "/proc/self/status") }

    static func reset() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    static var bytes: Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kilobytes * 1_024
    }
}
