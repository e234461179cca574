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
        // Generous: the effects are quick, but the whole suite shares two threads.
        await store.finish(timeout: .seconds(60))
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
            // Generous: the effect is quick, but the whole suite shares two threads.
            await store.finish(timeout: .seconds(60))
        } matching: { issue in
            issue.comments.map(\.rawValue).joined().contains("1 received action was not asserted")
        }
    }

    @Test("receiving the wrong action fails with the difference between the actions")
    func wrongReceivedAction() async {
        let store = TestStore(initialState: ShopState(), reducer: Shop.reducer, middleware: Shop.effects(environment: .simulated))
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
}
