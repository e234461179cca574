import Foundation
import Rewind
import RewindExamples
import RewindLog

/// A shop session of 40 actions, 5 of them lost to a full disk after the 20th; recording
/// resumed in a second session.
public func logWithRecordedGap() throws -> (folder: TemporaryDirectory, path: String) {
    let folder = try TemporaryDirectory()
    let path = folder.file("gap.rewind")
    var configuration = RecorderConfiguration<ShopState, ShopAction>()
    configuration.snapshotInterval = 10
    configuration.onFailure = { _ in }
    let log = try EventLog(path: path)
    let recorder = Recorder<ShopState, ShopAction>(log: log, app: AppIdentity(id: "com.example.shop"), configuration: configuration)
    let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
    for index in 0..<20 { store.dispatch(.cart(.add(productID: "p\(index % 3)", quantity: 1))) }
    try recorder.flush()
    try log.simulateFullDisk()
    let big = String(repeating: "x", count: 20_000)
    // Each lost action changes the state (the cart's message), as lost actions usually do.
    for index in 0..<5 { store.dispatch(.cart(.applyDiscount(code: "\(big)\(index)"))) }
    _ = try? recorder.flush()
    try log.freeDiskSpace()
    for index in 0..<15 { store.dispatch(.cart(.add(productID: "q\(index % 2)", quantity: 2))) }
    try recorder.close()
    return (folder, path)
}
