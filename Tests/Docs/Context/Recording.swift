// An app with a session token in its state and a login action the log must never hold.
import Foundation
import Rewind
import RewindLog

private struct AppState: Codable, Equatable, Sendable {
    struct Session: Codable, Equatable, Sendable { var token: String? }
    var session = Session()
}
private enum AppAction: Codable, Equatable, Sendable { case login(password: String), logout }
private let appReducer = Reducer<AppState, AppAction> { state, action in
    if case .logout = action { state.session.token = nil }
}
private let appEffects = Middleware<AppState, AppAction>()
private let url = URL(fileURLWithPath: "app.rewind")
private let keychainData = Data(repeating: 7, count: 32)
private let identity = AppIdentity(id: "com.example.myapp", version: "2.3")
private let configuration = RecorderConfiguration<AppState, AppAction>()
