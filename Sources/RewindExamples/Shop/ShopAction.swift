public import Foundation
public import RewindCoding

/// Everything that can happen in the shop.
@BinaryCodable
public enum ShopAction: Codable, Equatable, Hashable, Sendable {
    /// Loading what is on sale.
    case catalogue(CatalogueAction)
    /// Changing the cart.
    case cart(CartAction)
    /// Paying.
    case checkout(CheckoutAction)

    /// The catalogue action, if this is one.
    public var catalogue: CatalogueAction? {
        if case let .catalogue(action) = self { action } else { nil }
    }

    /// The cart action, if this is one.
    public var cart: CartAction? {
        if case let .cart(action) = self { action } else { nil }
    }

    /// The checkout action, if this is one.
    public var checkout: CheckoutAction? {
        if case let .checkout(action) = self { action } else { nil }
    }
}

/// Loading what is on sale.
@BinaryCodable
public enum CatalogueAction: Codable, Equatable, Hashable, Sendable {
    /// The app asks for the catalogue (effect: fetch it).
    case load(at: Date)
    /// The catalogue arrived.
    case loaded(products: [Product], discounts: [Discount])
    /// The catalogue could not be fetched.
    case loadFailed(reason: String)
}

/// Changing the cart.
@BinaryCodable
public enum CartAction: Codable, Equatable, Hashable, Sendable {
    /// Adds `quantity` of a product (to its line if it has one).
    case add(productID: String, quantity: Int)
    /// Sets a line's quantity; zero removes it.
    case setQuantity(productID: String, quantity: Int)
    /// Removes a line.
    case remove(productID: String)
    /// Applies a discount code.
    case applyDiscount(code: String)
    /// Removes the discount.
    case removeDiscount
    /// Empties the cart.
    case clear
}

/// Paying.
@BinaryCodable
public enum CheckoutAction: Codable, Equatable, Hashable, Sendable {
    /// The customer pays (effect: charge the order).
    case submit(orderID: UUID, at: Date)
    /// The payment service accepted the order.
    case paymentSucceeded(orderID: UUID, receipt: String)
    /// The payment service declined the order.
    case paymentFailed(orderID: UUID, reason: String)
    /// The customer dismisses a payment error.
    case dismissError
}
