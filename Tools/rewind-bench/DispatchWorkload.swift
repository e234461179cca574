import Foundation
import Rewind
import RewindExamples
import RewindLog

/// `dispatch`: a store with one no-op middleware (the baseline) against the same store with
/// the recorder (buffered, binary codec) — actions per second and the latency each dispatch
/// adds. The recorder's buffer holds the whole run, so the figure is the dispatch path's own
/// cost; what the writer sustains is the record workload's.
struct DispatchWorkload {
    var session: [DispatchedAction<ShopAction>]
    var actions: Int
    var runs: Int

    func measure() throws -> WorkloadResult {
        let session = self.session, actions = self.actions
        let noOp = Middleware<ShopState, ShopAction>(willReduce: { _, _, _ in }, didReduce: { _, _, _ in })
        let baseline = medianThroughput(actions: actions, runs: runs) {
            let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: noOp)
            for index in 0..<actions {
                let dispatched = session[index % session.count]
                store.dispatch(dispatched.action, from: dispatched.source)
            }
        }
        var rates: [Double] = []
        for run in 0...runs {
            let path = TemporaryLog.path("dispatch")
            defer { TemporaryLog.remove(path) }
            var configuration = RecorderConfiguration<ShopAction>()
            configuration.codec = BinaryPayloadCodec()
            configuration.bufferCapacity = actions + 1
            let recorder = Recorder<ShopState, ShopAction>(log: try EventLog(path: path), app: AppIdentity(id: "com.example.shop"), configuration: configuration)
            let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
            let elapsed = ContinuousClock().measure {
                for index in 0..<actions {
                    let dispatched = session[index % session.count]
                    store.dispatch(dispatched.action, from: dispatched.source)
                }
            }
            try recorder.close()
            if run > 0 { rates.append(Double(actions) / elapsed.seconds) }
        }
        let (baselineLatency, recorderLatency) = try latencies()
        let recorded = median(rates)
        return WorkloadResult(
            name: "dispatch (\(actions) shop actions)",
            baseline: "store with one no-op middleware",
            variants: [
                .init(name: "one no-op middleware (baseline)", value: baseline.median, unit: "actions/s", ratioToBaseline: 1, runs: baseline.all),
                .init(name: "recorder, buffered, binary", value: recorded, unit: "actions/s", ratioToBaseline: recorded / baseline.median, runs: rates),
            ],
            notes: [
                String(format: "latency per dispatch, p50 / p99: %.0f / %.0f ns without the recorder, %.0f / %.0f ns with it (added p50 %.0f ns, p99 %.0f ns)",
                       baselineLatency.p50, baselineLatency.p99, recorderLatency.p50, recorderLatency.p99,
                       recorderLatency.p50 - baselineLatency.p50, recorderLatency.p99 - baselineLatency.p99),
            ]
        )
    }

    /// p50 and p99 of single dispatches, timed one by one, without and with the recorder.
    private func latencies() throws -> (baseline: (p50: Double, p99: Double), recorder: (p50: Double, p99: Double)) {
        let count = min(actions, 200_000)
        func time(_ store: Store<ShopState, ShopAction>) -> (p50: Double, p99: Double) {
            let clock = ContinuousClock()
            var samples = [Double](repeating: 0, count: count)
            for index in 0..<count {
                let dispatched = session[index % session.count]
                let start = clock.now
                store.dispatch(dispatched.action, from: dispatched.source)
                samples[index] = (clock.now - start).seconds * 1e9
            }
            samples.sort()
            return (percentile(samples, 0.5), percentile(samples, 0.99))
        }
        let noOp = Middleware<ShopState, ShopAction>(willReduce: { _, _, _ in }, didReduce: { _, _, _ in })
        let baseline = time(Store(initialState: ShopState(), reducer: Shop.reducer, middleware: noOp))
        let path = TemporaryLog.path("latency")
        defer { TemporaryLog.remove(path) }
        var configuration = RecorderConfiguration<ShopAction>()
        configuration.codec = BinaryPayloadCodec()
        configuration.bufferCapacity = count + 1
        let recorder = Recorder<ShopState, ShopAction>(log: try EventLog(path: path), app: AppIdentity(id: "com.example.shop"), configuration: configuration)
        let recorded = time(Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware))
        try recorder.close()
        return (baseline, recorded)
    }
}
