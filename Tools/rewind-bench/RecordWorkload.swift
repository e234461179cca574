import Foundation
import Rewind
import RewindExamples
import RewindLog

/// `record`: the recorder's cost on the dispatch path, and what it sustains to disk.
///
/// - hand-off: a store with one no-op middleware (baseline) against the same store with the
///   recorder (buffered), its buffer large enough that the writer never makes dispatch wait —
///   the cost the dispatching thread pays.
/// - sustained: dispatch every action and `flush()`, so the time includes encoding and
///   committing everything (JSON codec) — what the recorder keeps up with.
/// - size: bytes of log file per event after the run.
struct RecordWorkload {
    var session: [DispatchedAction<ShopAction>]
    var actions: Int
    var runs: Int
    /// Periodic snapshots (0: none). The shop's order history grows as the session cycles,
    /// so each snapshot is larger than the last: the two settings bracket the cost.
    var snapshotInterval: Int

    func measure() throws -> WorkloadResult {
        let session = self.session
        let actions = self.actions
        let noOp = Middleware<ShopState, ShopAction>(willReduce: { _, _, _ in }, didReduce: { _, _, _ in })
        let baseline = medianThroughput(actions: actions, runs: runs) {
            let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: noOp)
            for index in 0..<actions {
                let dispatched = session[index % session.count]
                store.dispatch(dispatched.action, from: dispatched.source)
            }
        }

        var handOffRates: [Double] = []
        var sustainedRates: [Double] = []
        var bytesPerEvent: [Double] = []
        for run in 0...runs {
            let path = NSTemporaryDirectory() + "rewind-bench-\(UUID().uuidString).rewind"
            defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
            let log = try EventLog(path: path)
            var configuration = RecorderConfiguration<ShopAction>()
            configuration.bufferCapacity = actions + 1
            configuration.snapshotInterval = snapshotInterval
            let recorder = Recorder<ShopState, ShopAction>(log: log, app: AppIdentity(id: "com.example.shop"), configuration: configuration)
            let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
            let clock = ContinuousClock()
            let start = clock.now
            for index in 0..<actions {
                let dispatched = session[index % session.count]
                store.dispatch(dispatched.action, from: dispatched.source)
            }
            let dispatched = clock.now
            try recorder.flush()
            let committed = clock.now
            try recorder.close()
            try log.close()
            guard run > 0 else { continue }  // the first run warms up
            handOffRates.append(Double(actions) / (dispatched - start).seconds)
            sustainedRates.append(Double(actions) / (committed - start).seconds)
            let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            bytesPerEvent.append(Double(size) / Double(actions))
        }
        let handOff = median(handOffRates), sustained = median(sustainedRates)
        return WorkloadResult(
            name: "record" + (snapshotInterval > 0 ? " (snapshot every \(snapshotInterval) actions)" : " (no periodic snapshots)"),
            baseline: "store with one no-op middleware",
            variants: [
                .init(name: "no-op middleware (baseline)", actionsPerSecond: baseline.median, ratioToBaseline: 1, runsActionsPerSecond: baseline.all),
                .init(name: "recorder, dispatch path (hand-off)", actionsPerSecond: handOff, ratioToBaseline: handOff / baseline.median, runsActionsPerSecond: handOffRates),
                .init(name: "recorder, committed to disk (JSON)", actionsPerSecond: sustained, ratioToBaseline: sustained / baseline.median, runsActionsPerSecond: sustainedRates),
            ],
            notes: [String(format: "bytes per event on disk (JSON): %.1f", median(bytesPerEvent))]
        )
    }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

extension Duration {
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
