public import Foundation
public import Rewind

// The shop's imperative shell: what a UI's buttons and text fields would call. Each method is a
// real dispatch call site, so a recorded log names the screen and gesture behind every action.

/// The product list.
public struct CatalogueScreen<S: StoreType<ShopState, ShopAction>>: Sendable {
    let store: S

    /// A screen over `store`.
    public init(store: S) { self.store = store }

    /// The screen appeared (or was pulled to refresh).
    public func appeared(at date: Date) {
        store.dispatch(.catalogue(.load(at: date)))
    }

    /// The customer tapped a product's add button.
    public func addTapped(_ productID: String) {
        store.dispatch(.cart(.add(productID: productID, quantity: 1)))
    }
}

/// The cart.
public struct CartScreen<S: StoreType<ShopState, ShopAction>>: Sendable {
    let store: S

    /// A screen over `store`.
    public init(store: S) { self.store = store }

    /// The customer changed a line's quantity with the stepper.
    public func quantityStepped(_ productID: String, to quantity: Int) {
        store.dispatch(.cart(.setQuantity(productID: productID, quantity: quantity)))
    }

    /// The customer swiped a line away.
    public func removeSwiped(_ productID: String) {
        store.dispatch(.cart(.remove(productID: productID)), info: "swipe to delete")
    }

    /// The customer submitted a discount code.
    public func discountCodeSubmitted(_ code: String) {
        store.dispatch(.cart(.applyDiscount(code: code)))
    }

    /// The customer removed the discount.
    public func discountRemoved() {
        store.dispatch(.cart(.removeDiscount))
    }

    /// The customer emptied the cart.
    public func clearTapped() {
        store.dispatch(.cart(.clear))
    }
}

/// Paying.
public struct CheckoutScreen<S: StoreType<ShopState, ShopAction>>: Sendable {
    let store: S

    /// A screen over `store`.
    public init(store: S) { self.store = store }

    /// The customer tapped pay.
    public func payTapped(orderID: UUID, at date: Date) {
        store.dispatch(.checkout(.submit(orderID: orderID, at: date)))
    }

    /// The customer dismissed a payment error.
    public func errorDismissed() {
        store.dispatch(.checkout(.dismissError))
    }
}
