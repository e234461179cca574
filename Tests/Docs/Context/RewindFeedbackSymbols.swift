// The small apps of the feedback loops' doc comments: a screen that searches, two levels, a
// player, an editor, a session, an account whose password is reset; the services they call and
// the views they drive.
import Foundation
import Rewind
import RewindLog
import Testing

private struct Screen: Sendable {
    enum Event: Sendable { case loaded([String]), results([String]) }
    var query = ""
    var isLoading = false
    var pendingQuery: String?
}
private struct API: Sendable {
    func fetch(_ query: String) async throws -> [String] { [] }
    func search(_ query: String) async throws -> [String] { [] }
    func user() async throws -> String { "" }
}
private let api = API()
private final class View: @unchecked Sendable {
    var isHidden = false
    var text = ""
    func show(_ error: any Error) {}
}
private let spinner = View()
private let label = View()
private let banner = View()

private struct Counter: Codable, Sendable {
    enum Input: Codable, Sendable { case increment, reset }
    var count = 0
    static let reducer = Reducer<Counter, Input> { counter, input in
        switch input {
        case .increment: counter.count += 1
        case .reset: counter.count = 0
        }
    }
    static let resetAtTen = Reaction<Counter, Input>("reset at ten") { changes in
        changes.filter { $0.state.count >= 10 }.map { _ in Input.reset }
    }
}
private let taps = AsyncStream<Void> { $0.finish() }
private let recorder = Recorder<Counter, Counter.Input>(log: try! EventLog(path: "counter.rewind"), app: AppIdentity(id: "counter"))

private struct App: Sendable {
    enum Action: Sendable { case signIn }
    static let reducer = Reducer<App, Action> { _, _ in }
    static let effects = Middleware<App, Action>()
}

private struct Levels: Sendable {
    enum Event: Sendable { case raiseLeft, lowerRight, reset }
    var left: Int
    var right: Int
    static let reducer = Reducer<Levels, Event> { levels, event in
        switch event {
        case .raiseLeft: levels.left += 1
        case .lowerRight: levels.right -= 1
        case .reset: levels = Levels(left: 0, right: 10)
        }
    }
    static let leftFeedback = Feedback<Levels, Event>("left") { $0.left < $0.right ? .raiseLeft : nil }
    static let rightFeedback = Feedback<Levels, Event>("right") { $0.right > $0.left ? .lowerRight : nil }
}

private struct Player: Sendable {
    enum Event: Sendable { case tick }
    var isPlaying = false
}
private struct Clock: Sendable {
    func ticks(every interval: Duration) -> AsyncStream<Player.Event> { AsyncStream { $0.finish() } }
}
private let clock = Clock()

private struct Search: Sendable {
    enum Event: Sendable { case run(String) }
    var query = ""
}

private struct Session: Sendable {
    enum Event: Sendable { case refresh, expire }
    var expired = false
}
private struct AppState: Sendable { var session = Session() }
private struct Feature: Sendable {
    enum Status: Sendable { case ready, unauthorized }
    enum Event: Sendable { case load }
    var status = Status.ready
}

private struct Editor: Sendable {
    enum Input: Sendable, Equatable { case edit, saved }
    var text = ""
    static let reducer = Reducer<Editor, Input> { _, _ in }
}
private struct Channel: Sendable { let feedback = Feedback<Editor, Editor.Input>("channel") { _ in nil } }
private struct Configuration: Sendable { var autosave = true }
private let loadFeedback = Feedback<Editor, Editor.Input>("load") { _ in nil }
private let autosaveFeedback = Feedback<Editor, Editor.Input>("autosave") { _ in nil }
private let channels = [Channel()]
private let configuration = Configuration()
private struct Database: Sendable { func save(_ text: String) async throws {} }
private let database = Database()
/// A task executor of the app's own (one thread for the database, say).
private final class DatabaseExecutor: TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) { job.runSynchronously(on: asUnownedTaskExecutor()) }
}
private let databaseExecutor = DatabaseExecutor()
private struct Storage: Sendable { func save(_ text: String) async throws {} }
private let storage = Storage()

private struct Account: Sendable {
    enum Action: Sendable { case phoneEntered(String), codeEntered(String), passwordChosen(String) }
}
private let store = Store(initialState: Account(), reducer: Reducer<Account, Account.Action> { _, _ in })
private let stage = TestStage()
