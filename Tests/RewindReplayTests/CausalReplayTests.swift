import Foundation
import Rewind
import RewindExamples
import RewindLog
import RewindReplay
import RewindTestSupport
import Testing

/// What-if and shrink over recorded causes: a history without a gesture has none of what the
/// gesture led to.
@Suite("Replaying with causes")
struct CausalReplayTests {
    @Test("what-if without a tap on pay leaves out its payment result too; --keep-caused keeps it")
    func whatIfWithoutPay() async throws {
        let (_, log, live) = try await ReplayerTests.recordShop(seed: 7, actions: 60)
        let replayer = Replayer(log: log, reducer: Shop.reducer)
        var cursor = log.events()
        let events = try cursor.collect()
        let result = try #require(events.first { $0.actionCase == "checkout.paymentSucceeded" })
        let pay = try #require(result.cause)
        #expect(events.first { $0.seq == pay }?.actionCase == "checkout.submit")
        let end = try #require(events.last?.seq)

        /// The state folded from the live actions, leaving out `left`.
        func folded(without left: Set<Int64>) -> ShopState {
            var state = ShopState()
            for (index, dispatched) in live.reduced.enumerated() where !left.contains(Int64(index + 1)) {
                Shop.reducer(&state, dispatched.action)
            }
            return state
        }
        let whatIf = try replayer.whatIf(skipping: [pay], through: end)
        #expect(whatIf.skipped.map(\.seq) == [pay])
        #expect(whatIf.followers.map(\.seq) == events.filter { $0.cause == pay }.map(\.seq) && whatIf.followers.contains { $0.seq == result.seq })
        #expect(whatIf.alternative == folded(without: Set([pay] + whatIf.followers.map(\.seq))))

        let kept = try replayer.whatIf(skipping: [pay], through: end, skippingWhatTheyCaused: false)
        #expect(kept.followers.isEmpty && kept.alternative == folded(without: [pay]))
    }

    /// A counter whose tap starts an effect that adds 10: the result can only follow its tap.
    enum Step: Codable, Equatable, Sendable {
        case tap
        case add(Int)
        case noise
    }

    struct Count: Codable, Equatable, Sendable { var value = 0 }

    static let reducer = Reducer<Count, Step> { state, step in
        if case let .add(amount) = step { state.value += amount }
    }

    @Test("shrink keeps an effect's result with the tap that caused it, unless told to ignore causes")
    func shrinkKeepsCauses() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("count.rewind")
        let recorder = Recorder<Count, Step>(log: try EventLog(path: path), app: AppIdentity(id: "count"))
        let store = Store(initialState: Count(), reducer: Self.reducer, middleware: .combine(
            recorder.middleware,
            Middleware(didReduce: { dispatched, _, context in
                if dispatched.action == .tap { context.run(.run { send in send(.add(10)) }) }
            })
        ))
        for _ in 0..<5 { store.dispatch(.noise) }
        store.dispatch(.tap)
        await store.waitUntilIdle()
        for _ in 0..<5 { store.dispatch(.noise) }
        try await recorder.close()

        let replayer = Replayer(log: try EventLog(path: path, mode: .readOnly), reducer: Self.reducer)
        let shrunk = try #require(try replayer.shrink { $0.value >= 10 })
        #expect(shrunk.steps.map(\.action) == [.tap, .add(10)])
        #expect(shrunk.steps[1].event.cause == shrunk.steps[0].event.seq)
        let loose = try #require(try replayer.shrink(keepingCauses: false) { $0.value >= 10 })
        #expect(loose.steps.map(\.action) == [.add(10)])
    }
}
