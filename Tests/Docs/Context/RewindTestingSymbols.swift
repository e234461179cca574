// The app of the test helpers' doc comments: the shop example; a replayer of its log.
import Foundation
import RewindExamples
import RewindLog
import RewindReplay
import SnapshotTesting

private let replayer = Replayer(log: try! EventLog(path: ":memory:"), reducer: Shop.reducer)
private let id = UUID()
private let date = Date()
