// The app of the test helpers' doc comments: the shop example; a replayer of its log.
import Foundation
import RewindExamples
import RewindLog
import RewindReplay
import SnapshotTesting

private let replayer = Replayer(log: try! EventLog(path: ":memory:"), reducer: Shop.reducer)
private let id = UUID()
private let date = Date()

// assertNoSecrets's example: an app that signs in, and its redaction.
import Rewind
private struct AppState: Codable, Sendable { var token: String? }
private enum AppAction: Codable, Sendable { case signedIn(token: String) }
private let appReducer = Reducer<AppState, AppAction> { state, action in
    if case let .signedIn(token) = action { state.token = token }
}
private let appRedaction = Redaction<AppState, AppAction> { _ in .scrub(.signedIn(token: "•••")) }.scrubbing(\.token, with: nil)
private let app = AppIdentity(id: "com.example.app")
private let path = NSTemporaryDirectory() + "rewind-docs-\(UUID().uuidString).rewind"
