// The reader's app (`import MyApp`): a state with a balance, its reducer and upcaster.
import Foundation
import Rewind
import RewindCLI
import RewindLog

private struct AppState: Codable, Equatable, Sendable { var balance = 0 }
private enum AppAction: Codable, Equatable, Sendable { case deposit(Int) }
private let appReducer = Reducer<AppState, AppAction> { state, action in
    if case let .deposit(amount) = action { state.balance += amount }
}
private let appUpcaster = Upcaster()
private struct Money: CustomStringConvertible {
    var cents: Int64
    init(_ cents: Int64) { self.cents = cents }
    var description: String { "\(cents / 100).\(String(format: "%02d", abs(cents % 100)))" }
}
extension AppIdentity {
    fileprivate static let current = AppIdentity(id: "com.example.myapp", version: "2.3")
}
