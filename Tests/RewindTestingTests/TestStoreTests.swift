import Foundation
import Rewind
import RewindExamples
import RewindLog
import RewindTesting
import Testing

@Suite("TestStore")
struct TestStoreTests {
    static let orderID = UUID(uuidString: "00000000-0000-4000-8000-000000000042")!
    static let date = Date(timeIntervalSince1970: 1_000)

    @Test("checkout: every state change and the effect's result, asserted exhaustively")
    func checkoutFlow() async throws {
        let store = TestStore(initialState: ShopState(), reducer: Shop.reducer, middleware: Shop.effects(environment: .simulated))
        // Generous, as the testing guide advises for a large suite: the whole suite shares two
        // threads, and a receive with the default second once timed out in CI.
        store.timeout = .seconds(60)
        await store.send(.catalogue(.load(at: Self.date))) {
            $0.catalogue.isLoading = true
            $0.catalogue.requestedAt = Self.date
        }
        await store.receive(.catalogue(.loaded(products: Product.samples, discounts: Discount.samples))) {
            $0.catalogue.isLoading = false
            $0.catalogue.products = Product.samples
            $0.catalogue.discounts = Discount.samples
        }
        await store.send(.cart(.add(productID: "kettle", quantity: 1))) {
            $0.cart.lines = [CartLine(productID: "kettle", name: "Gooseneck kettle", unitPrice: 5_900, quantity: 1)]
            $0.cart.subtotal = 5_900
            $0.cart.total = 5_900
        }
        await store.send(.checkout(.submit(orderID: Self.orderID, at: Self.date))) {
            $0.checkout.status = .paying(Order(id: Self.orderID, lines: $0.cart.lines, total: 5_900, placedAt: Self.date))
        }
        await store.receive(.checkout(.paymentSucceeded(orderID: Self.orderID, receipt: "rcpt-00000000"))) {
            $0.checkout.orders = [Order(id: Self.orderID, lines: $0.cart.lines, total: 5_900, placedAt: Self.date, receipt: "rcpt-00000000")]
            $0.checkout.status = .idle
            $0.cart = ShopState.Cart()
        }
        // Generous: the effects are quick, but the whole suite shares two threads (see below).
        await store.finish(timeout: .seconds(300))
        // Everything was recorded as it went.
        #expect(try EventLog(path: store.logPath, mode: .readOnly).seqRange() == 1...5)
    }

    @Test("a wrong expectation fails at its line with a diff and the path of the recorded log")
    func wrongExpectation() async throws {
        let store = TestStore(initialState: ShopState(), reducer: Shop.reducer)
        let logPath = store.logPath
        let line = #line + 2
        await withKnownIssue {
            await store.send(.catalogue(.loaded(products: Product.samples, discounts: []))) {
                $0.catalogue.products = Array(Product.samples.prefix(2))
            }
        } matching: { issue in
            let message = issue.comments.map(\.rawValue).joined()
            return issue.sourceLocation?.line == line
                && message.contains("A state change does not match expectation: − expected, + actual")
                && message.contains("Recorded log: \(logPath)")
        }
        // The failing test keeps its log for `rewind`.
        #expect(FileManager.default.fileExists(atPath: store.logPath))
        #expect(try EventLog(path: store.logPath, mode: .readOnly).event(at: 1).actionCase == "catalogue.loaded")
    }

    @Test("an effect's action that is never received fails finish()")
    func unreceivedAction() async {
        let store = TestStore(initialState: ShopState(), reducer: Shop.reducer, middleware: Shop.effects(environment: .simulated))
        await store.send(.catalogue(.load(at: Self.date))) {
            $0.catalogue.isLoading = true
            $0.catalogue.requestedAt = Self.date
        }
        await withKnownIssue {
            // Generous: the effect is quick, but the whole suite shares two threads. The suite
            // starts its ~800 tests at once, and in its first minute and a half their bodies
            // keep both busy: whole-suite runs saw this quick effect not finish within 60 s
            // three times. finish returns as soon as the effect has, so only a failing
            // run waits the whole timeout.
            await store.finish(timeout: .seconds(300))
        } matching: { issue in
            issue.comments.map(\.rawValue).joined().contains("1 received action was not asserted")
        }
    }

    @Test("receiving the wrong action fails with the difference between the actions")
    func wrongReceivedAction() async {
        let store = TestStore(initialState: ShopState(), reducer: Shop.reducer, middleware: Shop.effects(environment: .simulated))
        store.timeout = .seconds(60)   // generous: the suite shares two threads
        await store.send(.catalogue(.load(at: Self.date))) {
            $0.catalogue.isLoading = true
            $0.catalogue.requestedAt = Self.date
        }
        await withKnownIssue {
            await store.receive(.catalogue(.loadFailed(reason: "offline")))
        } matching: { issue in
            let message = issue.comments.map(\.rawValue).joined()
            return message.contains("Received an unexpected action") || message.contains("A state change does not match")
        }
    }

    @Test("finish(timeout:) fails and returns when an effect never ends, even one that ignores cancellation")
    func finishGivesUpOnEndlessEffect() async {
        // A wait nothing can cancel: only the end of the test releases it.
        let release = DispatchSemaphore(value: 0)
        let endless = Middleware<Int, Int>(didReduce: { _, _, context in
            context.run(.run { _ in await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    release.wait()
                    continuation.resume()
                }
            } })
        })
        let store = TestStore(initialState: 0, reducer: Reducer { state, action in state += action }, middleware: endless)
        await store.send(1) { $0 = 1 }
        // Before, this call never returned: the test itself is the check.
        await withKnownIssue {
            await store.finish(timeout: .milliseconds(200))
        } matching: { issue in
            issue.comments.map(\.rawValue).joined().hasPrefix("Effects were still running after 0.2 seconds (1 running)")
        }
        release.signal()
    }

    @Test("non-exhaustive: the checkout asserted by what matters only — a total, the receipt's case — with the catalogue's actions let go")
    func nonExhaustive() async throws {
        let store = TestStore(initialState: ShopState(), reducer: Shop.reducer, middleware: Shop.effects(environment: .simulated))
        store.exhaustivity = .off
        store.timeout = .seconds(60)   // generous: the suite shares two threads
        await store.send(.catalogue(.load(at: Self.date)))          // its changes not asserted
        await store.receive(where: { if case .catalogue(.loaded) = $0 { true } else { false } })
        await store.send(.cart(.add(productID: "kettle", quantity: 1))) {
            $0.cart.total = 5_900                                   // nor the lines and the subtotal
        }
        await store.send(.checkout(.submit(orderID: Self.orderID, at: Self.date)))
        await store.receive(\.checkout) {
            $0.checkout.status = .idle
        }
        await store.finish()
        #expect(store.state.checkout.orders.map(\.receipt) == ["rcpt-00000000"])

        // What a closure does set is still checked.
        let strict = TestStore(initialState: ShopState(), reducer: Shop.reducer)
        strict.exhaustivity = .off
        await withKnownIssue {
            await strict.send(.cart(.applyDiscount(code: "NOPE"))) { $0.cart.total = 1 }
        } matching: { issue in
            issue.comments.map(\.rawValue).joined().contains("A state change does not match expectation")
        }
    }

    @Test("receive by a case path or a predicate; exhaustive, the next action must be that one")
    func receiveByCase() async throws {
        let store = TestStore(initialState: ShopState(), reducer: Shop.reducer, middleware: Shop.effects(environment: .simulated))
        store.timeout = .seconds(60)
        await store.send(.catalogue(.load(at: Self.date))) {
            $0.catalogue.isLoading = true
            $0.catalogue.requestedAt = Self.date
        }
        await withKnownIssue {
            await store.receive(\.checkout) {
                $0.catalogue.isLoading = false
                $0.catalogue.products = Product.samples
                $0.catalogue.discounts = Discount.samples
            }
        } matching: { issue in
            let message = issue.comments.map(\.rawValue).joined()
            return message.contains("Received an unexpected action instead of an action of the case at") && message.contains("catalogue")
        }
        await store.send(.catalogue(.load(at: Self.date))) { $0.catalogue.isLoading = true }
        await store.receive(where: { if case .catalogue(.loaded) = $0 { true } else { false } }) {
            $0.catalogue.isLoading = false
        }
        await store.finish()
    }

    @Test("a configurable wait: receive gives up after the store's timeout, not the old fixed second")
    func configurableWait() async {
        let store = TestStore(initialState: ShopState(), reducer: Shop.reducer)
        store.timeout = .milliseconds(50)
        // The message names the wait it used (a bound on the elapsed time would be a timed test:
        // under load, the polling task itself may be starved for seconds).
        await withKnownIssue {
            await store.receive(\.checkout)
        } matching: { issue in
            issue.comments.map(\.rawValue).joined().contains("but received none within 0.05 seconds")
        }
    }
}

/// An app whose actions are not `Equatable`: case paths and predicates suffice.
private struct Ticker: Codable, Equatable, Sendable {
    var count = 0
}

private enum TickerAction: Codable, Sendable {
    case tick(Date)
    case reset
    var tick: Date? { if case let .tick(date) = self { date } else { nil } }
}

@Suite("TestStore without Equatable actions")
struct TestStoreNonEquatableTests {
    @Test("a store of actions that are not Equatable: sent, and received by case path")
    func caseOnly() async {
        let reducer = Reducer<Ticker, TickerAction> { state, action in
            switch action {
            case .tick: state.count += 1
            case .reset: state.count = 0
            }
        }
        let ticking = Middleware<Ticker, TickerAction>(didReduce: { dispatched, state, context in
            if case .reset = dispatched.action { context.run(.send(.tick(Date()))) }
        })
        let store = TestStore(initialState: Ticker(), reducer: reducer, middleware: ticking)
        store.timeout = .seconds(60)
        await store.send(.tick(Date())) { $0.count = 1 }
        await store.send(.reset) { $0.count = 0 }
        await store.receive(\.tick) { $0.count = 1 }
        await store.finish()
    }

    @Test("non-exhaustive: receive lets go of the fed-back actions before the one it names, and finish of those after")
    func letsGo() async {
        let first = Date(timeIntervalSince1970: 1), second = Date(timeIntervalSince1970: 2), third = Date(timeIntervalSince1970: 3)
        let reducer = Reducer<Ticker, TickerAction> { state, action in
            switch action {
            case .tick: state.count += 1
            case .reset: state.count = 0
            }
        }
        let ticking = Middleware<Ticker, TickerAction>(didReduce: { dispatched, _, context in
            if case .reset = dispatched.action { context.run(.merge(.send(.tick(first)), .send(.tick(second)), .send(.tick(third)))) }
        })
        let store = TestStore(initialState: Ticker(count: 5), reducer: reducer, middleware: ticking)
        store.exhaustivity = .off
        store.timeout = .seconds(60)
        await store.send(.reset)
        await store.receive(where: { $0.tick == second }) { $0.count = 2 }   // the first tick let go
        await store.finish()                                                // the third too
        #expect(store.state.count == 3)

        // Exhaustive, the same run fails on the first tick and on the one never received.
        let exhaustive = TestStore(initialState: Ticker(count: 5), reducer: reducer, middleware: ticking)
        exhaustive.timeout = .seconds(60)
        await exhaustive.send(.reset) { $0.count = 0 }
        await withKnownIssue {
            await exhaustive.receive(where: { $0.tick == second }) { $0.count = 2 }
            await exhaustive.finish()
        } matching: { issue in
            let message = issue.comments.map(\.rawValue).joined()
            return message.contains("Received an unexpected action instead of an action matching the predicate")
                || message.contains("A state change does not match expectation") || message.contains("not asserted")
        }
    }
}
