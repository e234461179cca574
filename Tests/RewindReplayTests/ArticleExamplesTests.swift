import Foundation
import Rewind
import RewindExamples
import RewindLog
import RewindReplay
import RewindTestSupport
import Synchronization
import Testing

// The code of RewindLog's "Recording" and "Event-sourced persistence" articles and RewindReplay's
// "Replaying" article, kept compiling and true, with the shop app standing in for the articles'
// `AppState`, `AppAction` and `appReducer`. Names match the articles'.
@Suite("Article examples")
struct ArticleExamplesTests {
    @Test("Recording: the configuration the article shows records, withholds and closes")
    func recording() async throws {
        let folder = try TemporaryDirectory()
        let url = URL(fileURLWithPath: folder.file("app.rewind"))

        let log = try EventLog(path: url.path)
        let app = AppIdentity(id: "com.example.myapp", version: "2.3", actionSchemaVersion: 1, stateSchemaVersion: 1)

        var configuration = RecorderConfiguration<ShopState, ShopAction>()
        configuration.durability = .buffered(maxDelay: .milliseconds(100))
        configuration.snapshotInterval = 1_000
        configuration.snapshotBudget = 0.5
        configuration.redaction = Redaction { action in
            if case .checkout(.submit) = action { return .withhold }   // the article's `.login`
            return .keep
        }
        let failures = Mutex(0)
        configuration.onFailure = { _ in failures.withLock { $0 += 1 } }

        let recorder = Recorder<ShopState, ShopAction>(log: log, app: app, configuration: configuration)
        let store = Store(initialState: ShopState(), reducer: Shop.reducer,
                          middleware: .combine(recorder.middleware, .none))
        let actions = await Shop.sessionActions(count: 200, seed: 3)
        for dispatched in actions { store.dispatch(dispatched.action, from: dispatched.source) }
        try await recorder.close()

        let reader = try EventLog(path: url.path, mode: .readOnly)
        var cursor = reader.events()
        var count = 0, withheld = 0
        while let event = try cursor.next() {
            count += 1
            if event.actionCase.hasPrefix("checkout.submit") {
                withheld += 1
                #expect(event.payload == nil && event.redaction != nil, "a withheld action's payload never reaches the disk")
            }
        }
        #expect(count == actions.count)
        #expect(withheld > 0, "the scripted session checks out at least once")
        #expect(failures.withLock { $0 } == 0)
    }

    @Test("Event-sourced persistence: restoredState and the reading loop")
    func persistenceAndReading() async throws {
        let (_, log, live) = try await ReplayerTests.recordShop(actions: 120)
        let app = ReplayerTests.shop

        let state = try log.restoredState(app: app, reducer: Shop.reducer) ?? ShopState()
        #expect(state == live.store.state)

        for session in try log.sessions() { #expect(session.app.id == app.id && session.eventCount == 120) }
        var events = log.events(EventFilter(session: 1, actionCase: "cart.*", file: "ShopScreens"))
        var read = 0
        while let event = try events.next() {
            let action = try log.decodeAction(of: event, as: ShopAction.self)
            #expect(action.cart != nil && event.source.file.contains("ShopScreens"))
            read += 1
        }
        #expect(read > 0)
        #expect(try log.checkIntegrity().isSound)
    }

    @Test("Replaying: time travel, diff, bisect, verify, what-if and steps")
    func replaying() async throws {
        let (_, log, live) = try await ReplayerTests.recordShop(actions: 300)
        let replayer = Replayer(log: log, reducer: Shop.reducer)
        #expect(try replayer.state(at: 120) == live.states[119])

        let change = try replayer.diff(at: 12)
        #expect(change.event.seq == 12)

        guard case let .found(first, _) = try replayer.bisect(where: { $0.cart.total < 0 }) else {
            Issue.record("the seeded session drives the total negative")
            return
        }
        #expect(try replayer.state(at: first.event.seq).cart.total < 0)
        #expect(try replayer.state(at: first.event.seq - 1).cart.total >= 0)

        #expect(try replayer.verify().divergence == nil)

        let whatIf = try replayer.whatIf(skipping: [first.event.seq], through: first.event.seq)
        #expect(whatIf.through == first.event.seq)

        var steps = try replayer.steps(session: 1)
        var stepped = 0
        while let step = try steps.next() {
            stepped += 1
            #expect(step.state == live.states[Int(step.event.seq) - 1])
        }
        #expect(stepped == 300)
    }
}
