// Taps as inputs, a label to show the tally, a recorder, a flow, and the OpenCombine side.
import Foundation
@preconcurrency import OpenCombine
import Rewind
import RewindFeedback
import RewindLog
import RewindOpenCombine

private let taps = AsyncStream<Tally.Input> { $0.finish() }
private final class Label: @unchecked Sendable { var text = "" }
private let label = Label()
private let recorder = Recorder<Tally, Tally.Input>(log: try! EventLog(path: "tally.rewind"), app: AppIdentity(id: "tally", version: "1"))

private struct PasswordReset {
    enum Action { case phoneEntered(String) }
    static let enterPhone = Scene<String>("EnterPhoneScene", content: 0)
}
private let flow: Flow<PasswordReset.Action> = { fatalError("a flow is handed to withFlow's body") }()

private struct AppState: Sendable {
    struct Cart: Sendable { var total = 0 }
    var cart = Cart()
}
private enum AppAction: Sendable { case refresh }
private let store = Store(initialState: AppState(), reducer: Reducer<AppState, AppAction> { _, _ in })
private func render(_ total: Int) {}
nonisolated(unsafe) private let refreshTaps = PassthroughSubject<Void, Never>()

private struct Count: Codable, Equatable, Sendable { var value = 0 }
private enum CountAction: Codable, Equatable, Sendable { case add(Int) }
