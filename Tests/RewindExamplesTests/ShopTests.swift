import Foundation
import Rewind
import RewindExamples
import Testing

@Suite("Shop")
struct ShopTests {
    static func loadedShop() -> ShopState {
        var state = ShopState()
        Shop.reducer(&state, .catalogue(.loaded(products: Product.samples, discounts: Discount.samples)))
        return state
    }

    @Test("adding, stepping and removing keep the subtotal and total right")
    func cartArithmetic() {
        var state = Self.loadedShop()
        Shop.reducer(&state, .cart(.add(productID: "mug-blue", quantity: 1)))
        Shop.reducer(&state, .cart(.add(productID: "mug-blue", quantity: 2)))
        Shop.reducer(&state, .cart(.add(productID: "honey", quantity: 1)))
        #expect(state.cart.lines.map(\.quantity) == [3, 1])
        #expect(state.cart.subtotal == 3 * 1_200 + 790)
        Shop.reducer(&state, .cart(.setQuantity(productID: "mug-blue", quantity: 0)))
        #expect(state.cart.lines.map(\.productID) == ["honey"])
        Shop.reducer(&state, .cart(.add(productID: "nope", quantity: 1)))
        #expect(state.cart.message == "nope is not on sale")
        #expect(state.cart.total == 790)
    }

    @Test("a code below its minimum is refused with a message; a percentage code applies")
    func discountRules() {
        var state = Self.loadedShop()
        Shop.reducer(&state, .cart(.add(productID: "mug-blue", quantity: 1)))
        Shop.reducer(&state, .cart(.applyDiscount(code: "SAVE10")))
        #expect(state.cart.discount == nil)
        #expect(state.cart.message == "SAVE10 needs an order of at least 20.00")
        Shop.reducer(&state, .cart(.applyDiscount(code: "TEA15")))
        #expect(state.cart.total == 1_200 - 180)
    }

    @Test("the seeded bug: SAVE10 applied, then items removed, drives the total negative")
    func seededBug() {
        var state = Self.loadedShop()
        Shop.reducer(&state, .cart(.add(productID: "pot-glass", quantity: 1)))
        Shop.reducer(&state, .cart(.applyDiscount(code: Shop.fixedDiscountCode)))
        #expect(state.cart.total == 3_450 - 1_000)
        Shop.reducer(&state, .cart(.remove(productID: "pot-glass")))
        #expect(state.cart.total == -1_000)
    }

    @Test("checkout charges through the effect and records the paid order")
    func checkoutPays() async {
        let store = Store(
            initialState: Self.loadedShop(),
            reducer: Shop.reducer,
            middleware: Shop.effects(environment: .simulated)
        )
        let orderID = UUID(uuidString: "00000000-0000-4000-8000-000000000001")!
        store.dispatch(.cart(.add(productID: "kettle", quantity: 1)))
        store.dispatch(.checkout(.submit(orderID: orderID, at: Date(timeIntervalSince1970: 0))))
        await store.waitUntilIdle()
        #expect(store.state.checkout.orders.map(\.id) == [orderID])
        #expect(store.state.checkout.orders.first?.receipt == "rcpt-00000000")
        #expect(store.state.checkout.orders.first?.total == 5_900)
        #expect(store.state.cart.lines.isEmpty)
    }

    @Test("the payment service declines the bug's negative total")
    func negativeTotalIsDeclined() async {
        let store = Store(initialState: Self.loadedShop(), reducer: Shop.reducer, middleware: Shop.effects(environment: .simulated))
        store.dispatch(.cart(.add(productID: "pot-glass", quantity: 1)))
        store.dispatch(.cart(.applyDiscount(code: "SAVE10")))
        store.dispatch(.cart(.setQuantity(productID: "pot-glass", quantity: 0)))
        store.dispatch(.cart(.add(productID: "strainer", quantity: 1)))
        let orderID = UUID()
        store.dispatch(.checkout(.submit(orderID: orderID, at: Date(timeIntervalSince1970: 0))))
        await store.waitUntilIdle()
        #expect(store.state.checkout.status == .failed(orderID: orderID, reason: "amount must be positive"))
        #expect(store.state.checkout.orders.isEmpty)
    }

    @Test("loading the catalogue goes through the effect")
    func catalogueLoads() async {
        let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: Shop.effects(environment: .simulated))
        CatalogueScreen(store: store).appeared(at: Date(timeIntervalSince1970: 0))
        #expect(store.state.catalogue.isLoading)
        await store.waitUntilIdle()
        #expect(store.state.catalogue.products == Product.samples)
        #expect(!store.state.catalogue.isLoading)
    }

    @Test("a session is reproducible from its seed and has exactly the requested length")
    func sessionIsReproducible() async {
        let first = await Shop.sessionActions(count: 300, seed: 11)
        let again = await Shop.sessionActions(count: 300, seed: 11)
        let other = await Shop.sessionActions(count: 300, seed: 12)
        #expect(first.count == 300)
        #expect(first == again)
        #expect(first != other)
        #expect(first.contains { $0.source.origin == .effect && $0.source.file == "RewindExamples/ShopEffects.swift" })
        #expect(first.contains { $0.source.file == "RewindExamples/ShopScreens.swift" && $0.source.function.hasPrefix("removeSwiped") })
    }

    @Test("the demo's default seed hits the seeded bug within its first 60 actions")
    func demoSeedHitsTheBug() async {
        let actions = await Shop.sessionActions(count: 60, seed: 7)
        var state = ShopState()
        var firstNegative: Int?
        for (index, dispatched) in actions.enumerated() {
            Shop.reducer(&state, dispatched.action)
            if state.cart.total < 0 { firstNegative = index + 1; break }
        }
        let seq = try! #require(firstNegative)
        #expect(actions[seq - 1].action.cart != nil)
        #expect(actions[seq - 1].source.file == "RewindExamples/ShopScreens.swift")
    }
}
