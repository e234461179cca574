import Foundation
import Synchronization
import Rewind
import RewindExamples
import RewindLog

/// `dispatch`: a store with one no-op middleware (the baseline) against the same store with
/// the recorder in its default configuration, and with the middleware an app would write by
/// hand (``HandWrittenRecorder``) — actions per second and the latency each dispatch adds.
/// Actions go in bursts (2,048 by default, half the recorder's default buffer) and only the
/// dispatching is timed: between bursts the recorder is flushed, untimed, so the figure is the
/// dispatch path's own cost (the hand-written middleware encodes and commits on the dispatching
/// thread, so its figure includes that). What the writer sustains is the record workload's.
/// Bursts shorter than the recorder's batch (`--burst 1024`) keep its writer asleep while they
/// are timed: the hand-off alone, without a writer working on the other core.
///
/// Two rows measure an app's own store (a view model that reduces on its own, as apps on
/// SwiftRex, TCA or ReSwift do) without recording and with the recorder's tap: the hand-off for
/// stores that are not Rewind's, beside the recorder on Rewind's store.
///
/// Two rows price causation: the baseline store and the recorder's, each without causes (no
/// ticket, no task-local bound around each action) — a switch only the benchmark has.
///
/// A control row runs the baseline store while another thread does what the recorder's writer
/// does most of — encoding the same actions as JSON — with no hand-off at all: how much a busy
/// second core slows the dispatching one on this machine (shared caches, memory bandwidth, and
/// on a VM possibly one physical core), which no hand-off can avoid.
struct DispatchWorkload {
    var session: [DispatchedAction<ShopAction>]
    var actions: Int
    var runs: Int
    var burst = 2_048

    func measure() throws -> WorkloadResult {
        let session = self.session, actions = self.actions
        let noOp = Middleware<ShopState, ShopAction>(willReduce: { _, _, _ in }, didReduce: { _, _, _ in })
        /// Seconds spent dispatching, burst by burst, with `between` run untimed after each.
        func timeBursts(_ store: Store<ShopState, ShopAction>, between: () throws -> Void) rethrows -> Double {
            try timeBursts({ store.dispatch($0.action, from: $0.source) }, between: between)
        }
        func timeBursts(_ dispatch: (DispatchedAction<ShopAction>) -> Void, between: () throws -> Void) rethrows -> Double {
            let clock = ContinuousClock()
            var seconds = 0.0
            var index = 0
            while index < actions {
                let end = index + min(burst, actions - index)  // no overflow, whatever --burst says
                seconds += clock.measure {
                    for position in index..<end { dispatch(session[position % session.count]) }
                }.seconds
                index = end
                try between()
            }
            return seconds
        }
        var baselineRates: [Double] = [], recorderRates: [Double] = [], handWrittenRates: [Double] = [], controlRates: [Double] = []
        var ownStoreRates: [Double] = [], tapRates: [Double] = [], unmarkedRates: [Double] = [], triggerRates: [Double] = []
        var handedRates: [Double] = [], unwatchedRates: [Double] = []
        var uncausedRates: [Double] = [], uncausedRecorderRates: [Double] = []
        for run in 0...runs {
            let plain = timeBursts(Store(initialState: ShopState(), reducer: Shop.reducer, middleware: noOp)) {}
            // The same store without causes (no ticket, no task-local): what causation costs
            // the dispatch path.
            let uncaused = timeBursts(Store(initialState: ShopState(), reducer: Shop.reducer, middleware: noOp, tracksCauses: false)) {}
            let neighbour = BusyNeighbour(encoding: session.map(\.action))
            let besideBusy = timeBursts(Store(initialState: ShopState(), reducer: Shop.reducer, middleware: noOp)) {}
            neighbour.stop()
            let path = TemporaryLog.path("dispatch")
            defer { TemporaryLog.remove(path) }
            let recorder = try Self.recorder(at: path)
            let recorded = try timeBursts(Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)) {
                try recorder.flush()
            }
            try recorder.close()
            let uncausedPath = TemporaryLog.path("dispatch-uncaused")
            defer { TemporaryLog.remove(uncausedPath) }
            let uncausedRecorder = try Self.recorder(at: uncausedPath)
            let uncausedRecorded = try timeBursts(
                Store(initialState: ShopState(), reducer: Shop.reducer, middleware: uncausedRecorder.middleware, tracksCauses: false)
            ) {
                try uncausedRecorder.flush()
            }
            try uncausedRecorder.close()
            // The same without crash marks: what the mark's counter costs the dispatch path.
            let unmarkedPath = TemporaryLog.path("dispatch-unmarked")
            defer { TemporaryLog.remove(unmarkedPath) }
            let unmarkedRecorder = try Self.recorder(at: unmarkedPath, crashMarks: false)
            let unmarked = try timeBursts(Store(initialState: ShopState(), reducer: Shop.reducer, middleware: unmarkedRecorder.middleware)) {
                try unmarkedRecorder.flush()
            }
            try unmarkedRecorder.close()
            // The same without the hang watchdog: what its enter and leave cost the dispatch path.
            let unwatchedPath = TemporaryLog.path("dispatch-unwatched")
            defer { TemporaryLog.remove(unwatchedPath) }
            let unwatchedRecorder = try Self.recorder(at: unwatchedPath, hangWatchdog: false)
            let unwatched = try timeBursts(Store(initialState: ShopState(), reducer: Shop.reducer, middleware: unwatchedRecorder.middleware)) {
                try unwatchedRecorder.flush()
            }
            try unwatchedRecorder.close()
            // The same with reports on and error actions marked: what the field triggers cost
            // the dispatch path (their checks run on the writer thread).
            let triggeredPath = TemporaryLog.path("dispatch-triggers")
            defer { TemporaryLog.remove(triggeredPath); try? FileManager.default.removeItem(atPath: triggeredPath + "-reports") }
            let triggeredRecorder = try Self.recorder(at: triggeredPath, triggers: true)
            let triggered = try timeBursts(Store(initialState: ShopState(), reducer: Shop.reducer, middleware: triggeredRecorder.middleware)) {
                try triggeredRecorder.flush()
            }
            try triggeredRecorder.close()
            // The alternative to the shadow fold: the default recorder, and every state after an
            // action handed to a thread that checks the invariant — the app's next mutation then
            // copies what that thread still holds (copy-on-write), on the dispatching thread.
            let handedPath = TemporaryLog.path("dispatch-states-handed")
            defer { TemporaryLog.remove(handedPath) }
            let handedRecorder = try Self.recorder(at: handedPath)
            let checker = StateChecker(Shop.nonNegativeTotal)
            let handed = try timeBursts(Store(initialState: ShopState(), reducer: Shop.reducer,
                                              middleware: .combine(handedRecorder.middleware, checker.middleware))) {
                try handedRecorder.flush()
                checker.drain()
            }
            try handedRecorder.close()
            checker.stop()
            // What an app would write by hand: it encodes and commits on the dispatching thread.
            let handPath = TemporaryLog.path("dispatch-hand-written")
            defer { TemporaryLog.remove(handPath) }
            let handWritten = try HandWrittenRecorder<ShopState, ShopAction>(path: handPath, batchSize: RecordWorkload.handWrittenBatch)
            let byHand = timeBursts(Store(initialState: ShopState(), reducer: Shop.reducer, middleware: handWritten.middleware)) {}
            // An app's own store (a view model that reduces on its own), without and with the
            // recorder's tap: the hand-off for stores that are not Rewind's.
            let model = ShopViewModel(tap: nil)
            let ownStore = timeBursts({ model.send($0.action, from: $0.source) }) {}
            let tapPath = TemporaryLog.path("dispatch-tap")
            defer { TemporaryLog.remove(tapPath) }
            let tapRecorder = try Self.recorder(at: tapPath)
            let tapped = ShopViewModel(tap: tapRecorder.tap(initialState: ShopState()))
            let ownStoreTapped = try timeBursts({ tapped.send($0.action, from: $0.source) }) { try tapRecorder.flush() }
            try tapRecorder.close()
            if run > 0 {
                ownStoreRates.append(Double(actions) / ownStore)
                tapRates.append(Double(actions) / ownStoreTapped)
                baselineRates.append(Double(actions) / plain)
                uncausedRates.append(Double(actions) / uncaused)
                uncausedRecorderRates.append(Double(actions) / uncausedRecorded)
                recorderRates.append(Double(actions) / recorded)
                unmarkedRates.append(Double(actions) / unmarked)
                unwatchedRates.append(Double(actions) / unwatched)
                triggerRates.append(Double(actions) / triggered)
                handedRates.append(Double(actions) / handed)
                handWrittenRates.append(Double(actions) / byHand)
                controlRates.append(Double(actions) / besideBusy)
            }
        }
        // For reference: the reducer folded by hand, what a store costs on top of.
        let fold = medianThroughput(actions: actions, runs: runs) {
            var state = ShopState()
            for index in 0..<actions { Shop.reducer(&state, session[index % session.count].action) }
            blackHole(state.cart.total)
        }
        let (baselineLatency, recorderLatency) = try latencies()
        let baseline = median(baselineRates), recorded = median(recorderRates)
        // Each run's ratio, baseline and recorder measured back to back: the target holds in
        // every run, not only in the median.
        let ratios = zip(recorderRates, baselineRates).map { $0 / $1 }
        let tapRatios = zip(tapRates, ownStoreRates).map { $0 / $1 }
        let controlRatios = zip(controlRates, baselineRates).map { $0 / $1 }
        return WorkloadResult(
            name: "dispatch (\(actions) shop actions in bursts of \(burst))",
            baseline: "store with one no-op middleware",
            variants: [
                .init(name: "one no-op middleware (baseline)", value: baseline, unit: "actions/s", ratioToBaseline: 1, runs: baselineRates),
                .init(name: "recorder, default configuration", value: recorded, unit: "actions/s", ratioToBaseline: recorded / baseline, runs: recorderRates),
                .init(
                    name: "one no-op middleware, store without causes", value: median(uncausedRates), unit: "actions/s",
                    ratioToBaseline: median(uncausedRates) / baseline, runs: uncausedRates
                ),
                .init(
                    name: "recorder, store without causes", value: median(uncausedRecorderRates), unit: "actions/s",
                    ratioToBaseline: median(uncausedRecorderRates) / baseline, runs: uncausedRecorderRates
                ),
                .init(
                    name: "recorder, crash marks off", value: median(unmarkedRates), unit: "actions/s",
                    ratioToBaseline: median(unmarkedRates) / baseline, runs: unmarkedRates
                ),
                .init(
                    name: "recorder, hang watchdog off", value: median(unwatchedRates), unit: "actions/s",
                    ratioToBaseline: median(unwatchedRates) / baseline, runs: unwatchedRates
                ),
                .init(
                    name: "recorder, reports, error actions and an invariant on", value: median(triggerRates), unit: "actions/s",
                    ratioToBaseline: median(triggerRates) / baseline, runs: triggerRates
                ),
                .init(
                    name: "alternative: default recorder + every state handed to a checking thread", value: median(handedRates), unit: "actions/s",
                    ratioToBaseline: median(handedRates) / baseline, runs: handedRates
                ),
                .init(
                    name: "an app's own store (view model), no recording", value: median(ownStoreRates), unit: "actions/s",
                    ratioToBaseline: median(ownStoreRates) / baseline, runs: ownStoreRates
                ),
                .init(
                    name: "an app's own store + recorder tap, default configuration", value: median(tapRates), unit: "actions/s",
                    ratioToBaseline: median(tapRates) / baseline, runs: tapRates
                ),
                .init(
                    name: "hand-written: JSONEncoder + GRDB", value: median(handWrittenRates), unit: "actions/s",
                    ratioToBaseline: median(handWrittenRates) / baseline, runs: handWrittenRates
                ),
                .init(
                    name: "control: no-op, another thread encoding JSON", value: median(controlRates), unit: "actions/s",
                    ratioToBaseline: median(controlRates) / baseline, runs: controlRates
                ),
                .init(name: "reference: the reducer folded by hand", value: fold.median, unit: "actions/s", ratioToBaseline: fold.median / baseline, runs: fold.all),
                .init(name: "latency p50: one no-op middleware", value: baselineLatency.p50, unit: "ns", ratioToBaseline: 1, runs: []),
                .init(name: "latency p50: recorder", value: recorderLatency.p50, unit: "ns",
                      ratioToBaseline: recorderLatency.p50 / baselineLatency.p50, runs: []),
                .init(name: "latency p99: one no-op middleware", value: baselineLatency.p99, unit: "ns", ratioToBaseline: 1, runs: []),
                .init(name: "latency p99: recorder", value: recorderLatency.p99, unit: "ns",
                      ratioToBaseline: recorderLatency.p99 / baselineLatency.p99, runs: []),
            ],
            notes: [
                "ratio in each run: " + ratios.map { String(format: "%.2f", $0) }.joined(separator: " ")
                    + String(format: " (lowest %.2f×)", ratios.min() ?? 0),
                "causes over none in each run, no-op store: " + zip(baselineRates, uncausedRates).map { String(format: "%.3f", $0 / $1) }.joined(separator: " "),
                "causes over none in each run, recorder: " + zip(recorderRates, uncausedRecorderRates).map { String(format: "%.3f", $0 / $1) }.joined(separator: " "),
                "default over crash marks off in each run: " + zip(recorderRates, unmarkedRates).map { String(format: "%.3f", $0 / $1) }.joined(separator: " "),
                "default over hang watchdog off in each run: " + zip(recorderRates, unwatchedRates).map { String(format: "%.3f", $0 / $1) }.joined(separator: " "),
                "triggers on over the default in each run: " + zip(triggerRates, recorderRates).map { String(format: "%.3f", $0 / $1) }.joined(separator: " "),
                "states handed over per action, over the shadow fold (triggers on) in each run: "
                    + zip(handedRates, triggerRates).map { String(format: "%.3f", $0 / $1) }.joined(separator: " "),
                "tap over its own store's rate in each run: " + tapRatios.map { String(format: "%.2f", $0) }.joined(separator: " ")
                    + String(format: " (lowest %.2f×)", tapRatios.min() ?? 0),
                "control's ratio in each run: " + controlRatios.map { String(format: "%.2f", $0) }.joined(separator: " ")
                    + String(format: " (lowest %.2f×)", controlRatios.min() ?? 0),
                String(format: "latency added per dispatch: p50 %.0f ns, p99 %.0f ns",
                       recorderLatency.p50 - baselineLatency.p50, recorderLatency.p99 - baselineLatency.p99),
            ]
        )
    }

    /// p50 and p99 of single dispatches, timed one by one in bursts, without and with the recorder.
    private func latencies() throws -> (baseline: (p50: Double, p99: Double), recorder: (p50: Double, p99: Double)) {
        let count = min(actions, 200_000)
        func time(_ store: Store<ShopState, ShopAction>, between: () throws -> Void) rethrows -> (p50: Double, p99: Double) {
            let clock = ContinuousClock()
            var samples = [Double](repeating: 0, count: count)
            for index in 0..<count {
                let dispatched = session[index % session.count]
                let start = clock.now
                store.dispatch(dispatched.action, from: dispatched.source)
                samples[index] = (clock.now - start).seconds * 1e9
                if (index + 1) % burst == 0 { try between() }
            }
            samples.sort()
            return (percentile(samples, 0.5), percentile(samples, 0.99))
        }
        let noOp = Middleware<ShopState, ShopAction>(willReduce: { _, _, _ in }, didReduce: { _, _, _ in })
        let baseline = time(Store(initialState: ShopState(), reducer: Shop.reducer, middleware: noOp)) {}
        let path = TemporaryLog.path("latency")
        defer { TemporaryLog.remove(path) }
        let recorder = try Self.recorder(at: path)
        let recorded = try time(Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)) {
            try recorder.flush()
        }
        try recorder.close()
        return (baseline, recorded)
    }

    /// The recorder the measurements use: the default configuration (crash marks or the hang
    /// watchdog off, or the field triggers on — reports to a key, payments that fail marked as
    /// errors, the cart's total checked on the writer's shadow fold — for the rows that say so).
    private static func recorder(at path: String, crashMarks: Bool = true, hangWatchdog: Bool = true, triggers: Bool = false) throws -> Recorder<ShopState, ShopAction> {
        var configuration = RecorderConfiguration<ShopState, ShopAction>()
        configuration.crashMarks = crashMarks
        if !hangWatchdog { configuration.hangLimit = nil }
        if triggers {
            configuration.reports = ReportOptions(key: try ReportKey.generate(id: "bench").publicKey)
            configuration.errorActions = { action in if case .checkout(.paymentFailed) = action { true } else { false } }
            configuration.invariants = FieldInvariants(reducer: Shop.reducer, [Shop.nonNegativeTotal])
        }
        return Recorder(log: try EventLog(path: path), app: AppIdentity(id: "com.example.shop"), configuration: configuration)
    }
}

/// The alternative to a shadow fold, for the dispatch workload: a middleware that hands each
/// state after an action to a thread of its own, which checks an invariant on it — as the
/// recorder would if its hand-off carried states.
final class StateChecker: Sendable {
    private let states = Mutex<[ShopState]>([])
    private let wake = DispatchSemaphore(value: 0)
    private let stopped = Atomic<Bool>(false)
    private let broken = Atomic<Int>(0)
    private let idle = Atomic<Bool>(true)

    init(_ invariant: Invariant<ShopState>) {
        Thread { [self] in
            var taken: [ShopState] = []
            while !stopped.load(ordering: .relaxed) {
                _ = wake.wait(timeout: .now() + .milliseconds(10))
                idle.store(false, ordering: .relaxed)
                states.withLock { swap(&$0, &taken) }
                for state in taken where !invariant.holds(state) { broken.add(1, ordering: .relaxed) }
                taken.removeAll(keepingCapacity: true)
                idle.store(true, ordering: .relaxed)
            }
        }.start()
    }

    var middleware: Middleware<ShopState, ShopAction> {
        Middleware(didReduce: { [self] _, state, _ in
            let count = states.withLock { $0.append(state); return $0.count }
            if count == 1 { wake.signal() }
        })
    }

    /// Waits until every state handed over has been checked (untimed, between bursts).
    func drain() {
        while states.withLock({ !$0.isEmpty }) || !idle.load(ordering: .relaxed) { wake.signal(); usleep(100) }
    }

    func stop() { stopped.store(true, ordering: .relaxed); wake.signal() }
}

/// A thread that JSON-encodes actions in a loop until stopped: the writer's kind of work, with
/// no hand-off and no store, for the dispatch workload's control row.
final class BusyNeighbour: Sendable {
    private let stopped = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)

    init(encoding actions: [ShopAction]) {
        Thread { [self] in
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            var bytes = 0
            while !stopped.load(ordering: .relaxed) {
                for action in actions.prefix(1_024) { bytes &+= (try? encoder.encode(action).count) ?? 0 }
            }
            blackHole(bytes)
            done.signal()
        }.start()
    }

    func stop() {
        stopped.store(true, ordering: .relaxed)
        done.wait()
    }
}

/// An app's own store: a view model that reduces on its own and, given a tap, hands each
/// action to the recorder (the "Adopting Rewind in an app" recipe).
final class ShopViewModel {
    private(set) var state = ShopState()
    private let tap: RecorderTap<ShopState, ShopAction>?

    init(tap: RecorderTap<ShopState, ShopAction>?) {
        self.tap = tap
    }

    func send(_ action: ShopAction, from source: ActionSource) {
        guard let tap else { return Shop.reducer(&state, action) }
        tap.record(action, from: source, reducing: &state) { Shop.reducer(&$0, action) }
    }
}

extension Shop {
    /// The invariant the benchmarks check in the field (the `rewind` tool registers it too).
    static let nonNegativeTotal = Invariant<ShopState>(name: "non-negative-total", description: "the cart total is never negative") {
        $0.cart.total >= 0
    }
}
