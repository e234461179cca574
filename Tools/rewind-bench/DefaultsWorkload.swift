import Foundation
import Rewind
import RewindExamples
import RewindLog

/// `defaults`: the shop app recorded as a new user would, with the default configuration,
/// against the same recording with periodic snapshots off. The shop's state grows with every
/// order, so snapshots get dearer as the session goes on: the row a fixed interval gives
/// (`snapshotBudget = .infinity`, the default before snapshots were budgeted) shows what the
/// budget saves.
///
/// Each variant dispatches every action as fast as it can and then flushes; it reports the
/// whole time, the log's bytes, and the longest single dispatch (back-pressure shows there).
/// The bytes are the file's once its log is closed, its write-ahead log checkpointed into it
/// and removed: measured with the log open, they counted the WAL file's size on disk, which
/// says when the last checkpoint ran, not what the log holds.
/// A last row is the middleware an app would write by hand (``HandWrittenRecorder``), which
/// keeps only the actions.
struct DefaultsWorkload {
    var session: [DispatchedAction<ShopAction>]
    var actions: Int
    var runs: Int

    private struct Variant {
        var name: String
        /// The recorder's snapshot settings, or `nil` for ``HandWrittenRecorder``.
        var snapshots: (interval: Int, budget: Double)?
    }

    func measure() throws -> WorkloadResult {
        let defaults = RecorderConfiguration<ShopState, ShopAction>()
        let variants = [
            Variant(name: "snapshots off (baseline)", snapshots: (0, defaults.snapshotBudget)),
            Variant(name: "default configuration", snapshots: (defaults.snapshotInterval, defaults.snapshotBudget)),
            Variant(name: "fixed interval of 1,000", snapshots: (1_000, .infinity)),
            Variant(name: "hand-written: JSONEncoder + GRDB", snapshots: nil),
        ]
        var seconds: [[Double]] = [], bytes: [[Double]] = [], longest: [[Double]] = [], snapshotBytes: [[Double]] = [], commits: [[Double]] = [], losses: [[Double]] = []
        for variant in variants {
            var times: [Double] = [], sizes: [Double] = [], stalls: [Double] = [], snapshots: [Double] = [], commit: [Double] = [], lost: [Double] = []
            for run in 0...runs {
                let measured = try record(variant)
                guard run > 0 else { continue }  // the first is a warm-up
                times.append(measured.seconds)
                sizes.append(measured.megabytes)
                stalls.append(measured.longestDispatch)
                snapshots.append(measured.snapshotMegabytes)
                commit.append(measured.longestCommit)
                lost.append(measured.lost)
            }
            seconds.append(times)
            bytes.append(sizes)
            longest.append(stalls)
            snapshotBytes.append(snapshots)
            commits.append(commit)
            losses.append(lost)
        }
        var rows: [WorkloadResult.Variant] = []
        for (metric, unit, values) in [("time", "s", seconds), ("size", "MB", bytes), ("longest dispatch", "ms", longest)] {
            let baseline = median(values[0])
            for (variant, runs) in zip(variants, values) {
                let value = median(runs)
                rows.append(.init(name: "\(metric): \(variant.name)", value: value, unit: unit, ratioToBaseline: baseline > 0 ? value / baseline : nil, runs: runs))
            }
        }
        // Beside the longest dispatch, the longest batch commit: what a dispatch waiting for
        // room waits for (the writer frees room a batch at a time).
        for (variant, runs) in zip(variants, commits) where variant.snapshots != nil {
            rows.append(.init(name: "longest batch commit: \(variant.name)", value: median(runs), unit: "ms", ratioToBaseline: nil, runs: runs))
        }
        // Back-pressure must not drop either: the actions the log's gaps record as lost, at
        // the default stall limit.
        for (variant, runs) in zip(variants, losses) where variant.snapshots != nil {
            rows.append(.init(name: "actions lost: \(variant.name)", value: median(runs), unit: "actions", ratioToBaseline: nil, runs: runs))
        }
        // Of the size, what the snapshots take (the session's initial one included); the
        // hand-written middleware keeps none.
        for (variant, runs) in zip(variants, snapshotBytes) where variant.snapshots != nil {
            rows.append(.init(name: "snapshots: \(variant.name)", value: median(runs), unit: "MB", ratioToBaseline: nil, runs: runs))
        }
        return WorkloadResult(
            name: "defaults (\(actions) shop actions dispatched at full speed, then flushed; JSON, buffered, a growing state)",
            baseline: "the same recording with periodic snapshots off",
            variants: rows
        )
    }

    /// Records `actions` actions; returns seconds, megabytes of log, the longest dispatch in
    /// milliseconds, the megabytes of snapshot payloads in the log, and the recorder's longest
    /// batch commit in milliseconds (0 for the hand-written middleware), and the actions lost.
    private func record(_ variant: Variant) throws -> (seconds: Double, megabytes: Double, longestDispatch: Double, snapshotMegabytes: Double, longestCommit: Double, lost: Double) {
        let path = TemporaryLog.path("defaults")
        defer { TemporaryLog.remove(path) }
        let middleware: Middleware<ShopState, ShopAction>
        let finish: () throws -> Void, close: () throws -> Void
        var longestCommit: () -> Duration = { .zero }
        if let snapshots = variant.snapshots {
            var configuration = RecorderConfiguration<ShopState, ShopAction>()
            configuration.snapshotInterval = snapshots.interval
            configuration.snapshotBudget = snapshots.budget
            let log = try EventLog(path: path)
            let recorder = Recorder<ShopState, ShopAction>(log: log, app: AppIdentity(id: "com.example.shop"), configuration: configuration)
            middleware = recorder.middleware
            finish = { try recorder.flush() }
            close = {
                try recorder.close()
                try log.close()
            }
            longestCommit = { recorder.longestCommit }
        } else {
            let recorder = try HandWrittenRecorder<ShopState, ShopAction>(path: path, batchSize: RecordWorkload.handWrittenBatch)
            middleware = recorder.middleware
            finish = { try recorder.flush() }
            close = {}
        }
        let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: middleware)
        let clock = ContinuousClock()
        var longest = Duration.zero
        let elapsed = try clock.measure {
            for index in 0..<actions {
                let dispatched = session[index % session.count]
                let start = clock.now
                store.dispatch(dispatched.action, from: dispatched.source)
                longest = max(longest, clock.now - start)
            }
            try finish()
        }
        let commit = longestCommit()
        try close()
        var snapshotBytes = 0, lost = 0
        if variant.snapshots != nil {
            let log = try EventLog(path: path, mode: .readOnly)
            snapshotBytes = try log.statistics().snapshotBytes
            lost = try log.gaps().reduce(0) { $0 + Int($1.lost) }
        }
        return (
            elapsed.seconds, Double(TemporaryLog.size(path)) / 1_000_000, longest.seconds * 1_000, Double(snapshotBytes) / 1_000_000, commit.seconds * 1_000,
            Double(lost)
        )
    }
}
