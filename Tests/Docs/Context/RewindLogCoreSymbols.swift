// The apps of the log core's doc comments: the shop example, and a small app that signs in and
// pays, for the redaction examples; the keys and paths the reader has.
import Foundation
import Rewind
import RewindExamples
import RewindLog
import RewindReplay

private struct AppState: Sendable {
    struct Session: Sendable { var token: String? }
    struct Payment: Sendable { var cardNumber = "" }
    var session = Session()
    var payment = Payment()
}
private enum AppAction: Sendable {
    enum Login: Sendable { case submit(user: String, password: String) }
    enum Payment: Sendable { case cardEntered(String) }
    case login(Login)
    case payment(Payment)
    case signOut
}
private struct Logger { func error(_ message: String) {} }
private let logger = Logger()

private let keychainData = Data(repeating: 7, count: 32)
private let newKey = Data(repeating: 8, count: 32)
private let oldKey = Data(repeating: 9, count: 32)
private let path = ":memory:"
private let url = URL(fileURLWithPath: "/tmp/shop.rewind")
private let identity = AppIdentity(id: "com.example.shop")
private let upgrades = SchemaUpgrades(app: identity, upcaster: Upcaster())
private let log = try! EventLog(path: ":memory:")

// The reports' examples: the key line `rewind report keygen` printed, a recorder with reports
// on, and the app's upload.
private let teamPublicKeyLine = try! ReportKey.generate(id: "team-2026").publicKey.line
private let recorder = {
    var configuration = RecorderConfiguration<ShopState, ShopAction>()
    configuration.reports = ReportOptions(key: try! ReportKey(line: teamPublicKeyLine))
    return Recorder<ShopState, ShopAction>(log: try! EventLog(path: ":memory:"), app: identity, configuration: configuration)
}()
private func upload(_ report: Data) async throws {}

// The causes example (RecorderTap): a store that is not Rewind's, its tap, the action it reduces,
// and how it runs the effect its reducer returns.
private let tap = recorder.tap(initialState: ShopState())
private let action = ShopAction.cart(.clear)
private let source = ActionSource()
nonisolated(unsafe) private var state = ShopState()
private func reducer(_ state: inout ShopState, _ action: ShopAction) -> Effect<ShopAction> { .none }
private func run(_ effect: Effect<ShopAction>) {}
