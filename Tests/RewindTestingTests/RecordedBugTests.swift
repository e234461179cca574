import Foundation
import Rewind
import RewindExamples
import RewindLog
import RewindReplay
import RewindTestSupport
import RewindTesting
import Testing

@Suite("Recorded bugs as regression tests")
struct RecordedBugTests {
    /// The shop's reducer with the seeded bug fixed: the discount is checked again.
    static let fixedReducer = Reducer<ShopState, ShopAction>.combine(Shop.reducer, Reducer { state, _ in
        if let discount = state.cart.discount, state.cart.subtotal < discount.minimumSubtotal {
            state.cart.discount = nil
            state.cart.discountAmount = 0
            state.cart.total = state.cart.subtotal
        }
    })

    @Test("the invariant check fails on the user's log at the first bad step, naming seq, case and source")
    func invariantBrokenInRecordedSession() throws {
        let log = try fixtureLog("__Fixtures__/shop-demo-seed7.jsonl")
        let line = #line + 2
        withKnownIssue("the shop's seeded bug") {
            assertInvariant("non-negative total", throughout: log, reducer: Shop.reducer) { $0.cart.total >= 0 }
        } matching: { issue in
            let message = issue.comments.map(\.rawValue).joined()
            return issue.sourceLocation?.line == line
                && message.contains("Invariant 'non-negative total' broken at seq 12 (cart.setQuantity), dispatched at RewindExamples/ShopScreens.swift:")
                && message.contains("+     total: -1000,")
        }
    }

    @Test("with the bug fixed, the same log keeps the invariant at every step")
    func fixedReducerKeepsInvariant() throws {
        let checked = assertInvariant("non-negative total", throughout: try fixtureLog("__Fixtures__/shop-demo-seed7.jsonl"), reducer: Self.fixedReducer) {
            $0.cart.total >= 0
        }
        #expect(checked == 60)
    }

    @Test("an app's Invariant value, as its replay tool holds it, checks a log the same way")
    func invariantValue() throws {
        let nonNegative = Invariant<ShopState>(name: "non-negative-total", description: "the cart total is never negative") {
            $0.cart.total >= 0
        }
        let log = try fixtureLog("__Fixtures__/shop-demo-seed7.jsonl")
        #expect(assertInvariant(nonNegative, throughout: log, reducer: Self.fixedReducer) == 60)
        withKnownIssue("the shop's seeded bug") {
            assertInvariant(nonNegative, throughout: log, reducer: Shop.reducer)
        } matching: { issue in
            issue.comments.map(\.rawValue).joined().contains("Invariant 'non-negative-total' broken at seq 12 (cart.setQuantity)")
        }
    }

    @Test("shrinking the seeded bug's log keeps a handful of actions that still drive the total negative")
    func shrinkSeededBug() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("shop.rewind")
        let live = try await recordSession(
            into: try EventLog(path: path), app: AppIdentity(id: "com.example.shop"), initialState: ShopState(),
            reducer: Shop.reducer, effects: Shop.effects(environment: .simulated), user: Shopper(seed: 5), actions: 2_000
        )
        let firstNegative = try #require(live.states.firstIndex { $0.cart.total < 0 }) + 1
        let replayer = Replayer(log: try EventLog(path: path, mode: .readOnly), reducer: Shop.reducer)
        let clock = ContinuousClock()
        var shrunk: ShrinkResult<ShopState, ShopAction>?
        let elapsed = try clock.measure { shrunk = try replayer.shrink(where: { $0.cart.total < 0 }) }
        let result = try #require(shrunk)
        #expect(result.originalCount == firstNegative)
        #expect(result.steps.count <= 5)
        #expect(result.steps.count < result.originalCount / 10)
        #expect(elapsed < .seconds(30))
        // 1-minimal among histories that could happen: dropping any kept action, and what it
        // led to (a catalogue's arrival without its request cannot happen), loses the bug.
        for dropped in result.steps.indices {
            var state = result.initialState
            var negative = false
            var gone: Set<Int64> = [result.steps[dropped].event.seq]
            for step in result.steps where step.event.cause.map(gone.contains) == true { gone.insert(step.event.seq) }
            for step in result.steps where !gone.contains(step.event.seq) {
                Shop.reducer(&state, step.action)
                negative = negative || state.cart.total < 0
            }
            #expect(!negative, "action \(dropped) could be dropped")
        }

        // The fixture it writes is itself a regression test: it breaks the invariant at its
        // last step with the buggy reducer, and keeps it with the fixed one.
        let fixture = try result.write(to: folder.file("fixture.rewind"))
        withKnownIssue("the shop's seeded bug") {
            assertInvariant("non-negative total", throughout: fixture, reducer: Shop.reducer) { $0.cart.total >= 0 }
        } matching: { issue in
            issue.comments.map(\.rawValue).joined().contains("broken at seq \(result.steps.count) ")
        }
        assertInvariant("non-negative total", throughout: fixture, reducer: Self.fixedReducer) { $0.cart.total >= 0 }
    }

    @Test("an encrypted log shrinks to an encrypted fixture, which a test opens with the key (and not without it)")
    func encryptedFixture() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("shop.rewind")
        let key = try LogKey.random(id: "ci")
        _ = try await recordSession(
            into: try EventLog(path: path, keys: LogKeys(current: key)), app: AppIdentity(id: "com.example.shop"), initialState: ShopState(),
            reducer: Shop.reducer, effects: Shop.effects(environment: .simulated), user: Shopper(seed: 5), actions: 600
        )
        let replayer = Replayer(log: try EventLog(path: path, mode: .readOnly, keys: LogKeys(others: [key])), reducer: Shop.reducer)
        let result = try #require(try replayer.shrink(where: { $0.cart.total < 0 }))
        let fixturePath = folder.file("fixture.rewind")
        #expect(throws: EventLogError.keyMissing(path: fixturePath, session: result.session.id, keyID: "ci")) {
            try result.write(to: fixturePath)
        }
        try result.write(to: fixturePath, keys: LogKeys(others: [key])).close()
        let fixture = try fixtureLog(fixturePath, keys: LogKeys(others: [key]))
        #expect(try fixture.sessions().map(\.encryption?.keyID) == ["ci"])
        withKnownIssue("the shop's seeded bug") {
            assertInvariant("non-negative total", throughout: fixture, reducer: Shop.reducer) { $0.cart.total >= 0 }
        }
        #expect(assertInvariant("non-negative total", throughout: fixture, reducer: Self.fixedReducer) { $0.cart.total >= 0 } == result.steps.count)
        #expect(throws: EventLogError.keyMissing(path: fixturePath, session: 1, keyID: "ci")) {
            try Replayer(log: try fixtureLog(fixturePath), reducer: Shop.reducer).finalState(session: 1)
        }
    }

    @Test("the committed shrunk fixture still reproduces the bug")
    func committedShrunkFixture() throws {
        let fixture = try fixtureLog("__Fixtures__/shop-negative-total.jsonl")
        #expect(try fixture.seqRange() == 1...4)
        withKnownIssue("the shop's seeded bug") {
            assertInvariant("non-negative total", throughout: fixture, reducer: Shop.reducer) { $0.cart.total >= 0 }
        }
        assertInvariant("non-negative total", throughout: fixture, reducer: Self.fixedReducer) { $0.cart.total >= 0 }
    }
}
