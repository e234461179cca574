// The app of the store's doc comments: the shop example, and the services its effects call.
import Foundation
import RewindExamples
import RewindLog

private typealias AppState = ShopState
private typealias AppAction = ShopAction
private let store = Store(initialState: ShopState(), reducer: Shop.reducer)
private let appStore = store
#if canImport(SwiftUI)
import SwiftUI
#endif
private let recorder = Recorder<ShopState, ShopAction>(log: try! EventLog(path: ":memory:"), app: AppIdentity(id: "com.example.shop"))
private let productID = "pot-glass"
private let product = Product.samples[0]
private let id = UUID()
private let now = Date()
private func render(_ state: ShopState) {}
private let cartReducer = Reducer<ShopState.Cart, CartAction> { _, _ in }
private let catalogueReducer = Reducer<ShopState.Catalogue, CatalogueAction> { _, _ in }
private enum CounterAction { case increment, decrement }

/// The catalogue service the effects call.
private struct CatalogueAPI: Sendable {
    var fetchCatalogue: @Sendable () async throws -> ([Product], [Discount])
    static let live = CatalogueAPI { (Product.samples, Discount.samples) }

    func loaded() async throws -> CatalogueAction {
        let (products, discounts) = try await fetchCatalogue()
        return .loaded(products: products, discounts: discounts)
    }
}
private let api = CatalogueAPI.live
private struct Payments: Sendable {
    func charge(_ order: UUID) async throws -> String { "rcpt-1" }
}
private let payments = Payments()
