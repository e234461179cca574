import Foundation
import Rewind
import RewindExamples
import RewindLog

/// `launch`: what recording costs the thread that starts it, usually the main thread at launch —
/// opening the log, then creating the recorder, binding it to a store and dispatching the first
/// action — on a new file and on a log that already holds a session of the shop app; and the
/// same with `Recorder(at:)`, whose writer thread opens the log. Each
/// sample is its own log (nothing cached but the page cache), with the default configuration.
///
/// The baseline is the same store without a recorder: the store's own cost.
struct LaunchWorkload {
    var session: [DispatchedAction<ShopAction>]
    var samples: Int

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
        let rows: [(String, [Double])] = [
            ("store and first dispatch, no recorder (baseline)", storeAlone),
            ("new file: open the log", openNew),
            ("new file: recorder, store, first dispatch", bindNew),
            ("\(session.count)-action log: open the log", openExisting),
            ("\(session.count)-action log: recorder, store, first dispatch", bindExisting),
            ("new file, Recorder(at:): recorder, store, first dispatch (the writer opens it)", atNew),
            ("\(session.count)-action log, Recorder(at:): recorder, store, first dispatch", atExisting),
        ]
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
