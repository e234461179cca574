// `rewind-allocations`: counts the heap allocations a dispatch makes on the dispatching thread,
// through a store with one no-op middleware and through the same store with the recorder, so
// the difference is what the recorder's hand-off costs in allocations (its target: none).
//
// ordo-one's malloc interposer does the counting. On Linux, linking its shared library makes
// its `malloc` the process's (it is loaded ahead of libc), so the tool runs as it is:
//   swift run -c release rewind-allocations [--json]
// On macOS, preload it: DYLD_INSERT_LIBRARIES=.build/release/libMallocInterposerSwift.dylib.
//
// A control row — a middleware that boxes every action in a class instance — must show one
// allocation per dispatch more than the baseline, which shows the count would catch a hand-off
// that allocates.
//
// Only allocations made on the dispatching thread count: the recorder's writer thread encodes
// and writes concurrently, and allocates as it likes, off the hot path. An allocation hook (run
// on the allocating thread) keeps the tally (`AllocationCounter`).

import Foundation
import MallocInterposerSwift
import Rewind
import RewindExamples
import RewindLog

let arguments = CommandLine.arguments.dropFirst()
let asJSON = arguments.contains("--json")
// Half the recorder's default buffer (4,096): a pass that filled it would make dispatch wait
// for the writer, and waiting may allocate (as `RecordingBuffer` says); this counts the hand-off.
let dispatches = 2_048
let session = await Shop.sessionActions(count: dispatches, seed: 7)

/// Dispatches the session once to warm up (buffers grow to size, sources intern, lazy globals
/// initialise), then counts a second pass. Flushing stays outside the counted pass.
@MainActor
func measure(_ store: Store<ShopState, ShopAction>, flush: () throws -> Void) rethrows -> Int {
    for dispatched in session { store.dispatch(dispatched.action, from: dispatched.source) }
    try flush()
    return AllocationCounter.allocations {
        for dispatched in session { store.dispatch(dispatched.action, from: dispatched.source) }
    }
}

let noOp = Middleware<ShopState, ShopAction>(willReduce: { _, _, _ in }, didReduce: { _, _, _ in })
let baseline = measure(Store(initialState: ShopState(), reducer: Shop.reducer, middleware: noOp)) {}

/// A middleware that allocates once per action: the control.
final class Boxed: @unchecked Sendable {
    let action: ShopAction
    init(_ action: ShopAction) { self.action = action }
}
nonisolated(unsafe) var lastBoxed: Boxed?
let boxing = Middleware<ShopState, ShopAction>(willReduce: { _, _, _ in }, didReduce: { dispatched, _, _ in
    lastBoxed = Boxed(dispatched.action)
})
let control = measure(Store(initialState: ShopState(), reducer: Shop.reducer, middleware: boxing)) {}

/// The counted pass through a store recording into a new log with `configuration`.
@MainActor
func recording(with configuration: RecorderConfiguration<ShopState, ShopAction>) throws -> Int {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-allocations-\(UUID().uuidString).rewind").path
    defer {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
    let recorder = Recorder<ShopState, ShopAction>(log: try EventLog(path: path), app: AppIdentity(id: "com.example.shop"), configuration: configuration)
    let count = try measure(Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)) {
        try recorder.flush()
    }
    try recorder.close()
    return count
}

var configuration = RecorderConfiguration<ShopState, ShopAction>()
configuration.codec = BinaryPayloadCodec()
configuration.snapshotInterval = 0
let recorded = try recording(with: configuration)

// Periodic snapshots every 256 actions (a fixed interval: no budget): the hand-off boxes the
// state once per snapshot, and the reductions after it copy what they change of a state the
// writer still holds (copy on write): a few allocations per snapshot, none per action.
let snapshotInterval = 256
configuration.snapshotInterval = snapshotInterval
configuration.snapshotBudget = .infinity
let snapshotted = try recording(with: configuration)

guard control > baseline else {
    FileHandle.standardError.write(Data("rewind-allocations: the control's allocations were not counted; is the interposer loaded? (on macOS: DYLD_INSERT_LIBRARIES=…/libMallocInterposerSwift.dylib)\n".utf8))
    exit(2)
}
func perDispatch(_ count: Int) -> Double { Double(count) / Double(dispatches) }
let added = perDispatch(recorded) - perDispatch(baseline)
let controlAdded = perDispatch(control) - perDispatch(baseline)
if asJSON {
    print(#"{"dispatches":\#(dispatches),"baseline":\#(baseline),"recorder":\#(recorded),"snapshotInterval":\#(snapshotInterval),"recorderWithSnapshots":\#(snapshotted),"control":\#(control),"addedPerDispatch":\#(added),"controlAddedPerDispatch":\#(controlAdded)}"#)
} else {
    print("allocations on the dispatching thread, \(dispatches) shop actions after a warm-up pass:")
    print(String(format: "  one no-op middleware (baseline):           %6d (%.3f per dispatch; the shop reducer's own)", baseline, perDispatch(baseline)))
    print(String(format: "  recorder, buffered, binary:                %6d (%+.3f per dispatch over the baseline)", recorded, added))
    print(String(format: "  recorder, a snapshot every %3d actions:    %6d (%+d over the baseline: %.2f per snapshot)", snapshotInterval, snapshotted, snapshotted - baseline, Double(snapshotted - baseline) / Double(dispatches / snapshotInterval)))
    print(String(format: "  control: a middleware boxing every action: %6d (%+.3f per dispatch over the baseline)", control, controlAdded))
}
