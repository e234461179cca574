public import Rewind

extension Shop {
    /// The shop's logic: the catalogue's reducer lifted onto its part of the state, then the
    /// cart and checkout reducers, which need the whole state (prices, the cart to charge).
    public static let reducer: Reducer<ShopState, ShopAction> = .combine(
        catalogueReducer.lift(state: \ShopState.catalogue, action: \ShopAction.catalogue),
        cartReducer.lift(action: \ShopAction.cart),
        checkoutReducer.lift(action: \ShopAction.checkout)
    )

    static let catalogueReducer = Reducer<ShopState.Catalogue, CatalogueAction> { catalogue, action in
        switch action {
        case let .load(date):
            catalogue.isLoading = true
            catalogue.loadError = nil
            catalogue.requestedAt = date
        case let .loaded(products, discounts):
            catalogue.isLoading = false
            catalogue.products = products
            catalogue.discounts = discounts
        case let .loadFailed(reason):
            catalogue.isLoading = false
            catalogue.loadError = reason
        }
    }

    static let cartReducer = Reducer<ShopState, CartAction> { state, action in
        state.cart.message = nil
        switch action {
        case let .add(productID, quantity):
            guard let product = state.catalogue.products.first(where: { $0.id == productID }) else {
                state.cart.message = "\(productID) is not on sale"
                return
            }
            if let index = state.cart.lines.firstIndex(where: { $0.productID == productID }) {
                state.cart.lines[index].quantity = min(state.cart.lines[index].quantity + quantity, 99)
            } else {
                state.cart.lines.append(CartLine(
                    productID: productID, name: product.name, unitPrice: product.price, quantity: min(quantity, 99)
                ))
            }
        case let .setQuantity(productID, quantity):
            if quantity <= 0 {
                state.cart.lines.removeAll { $0.productID == productID }
            } else if let index = state.cart.lines.firstIndex(where: { $0.productID == productID }) {
                state.cart.lines[index].quantity = min(quantity, 99)
            }
        case let .remove(productID):
            state.cart.lines.removeAll { $0.productID == productID }
        case let .applyDiscount(code):
            guard let discount = state.catalogue.discounts.first(where: { $0.code == code }) else {
                state.cart.message = "\(code) is not a valid code"
                return
            }
            guard state.cart.subtotal >= discount.minimumSubtotal else {
                state.cart.message = "\(code) needs an order of at least \(Money(discount.minimumSubtotal))"
                return
            }
            state.cart.discount = discount
        case .removeDiscount:
            state.cart.discount = nil
        case .clear:
            state.cart.lines = []
            state.cart.discount = nil
        }
        recalculate(&state.cart)
    }

    /// Recomputes the cart's money. The seeded bug lives here: the discount's minimum subtotal
    /// was checked when it was applied and is not checked again (see ``Shop``).
    static func recalculate(_ cart: inout ShopState.Cart) {
        cart.subtotal = cart.lines.reduce(0) { $0 + $1.unitPrice * $1.quantity }
        switch cart.discount?.kind {
        case nil: cart.discountAmount = 0
        case let .amountOff(amount)?: cart.discountAmount = amount
        case let .percentOff(percent)?: cart.discountAmount = cart.subtotal * percent / 100
        }
        cart.total = cart.subtotal - cart.discountAmount
    }

    static let checkoutReducer = Reducer<ShopState, CheckoutAction> { state, action in
        switch action {
        case let .submit(orderID, date):
            guard case .idle = state.checkout.status, !state.cart.lines.isEmpty else { return }
            state.checkout.status = .paying(Order(
                id: orderID, lines: state.cart.lines, total: state.cart.total, placedAt: date
            ))
        case let .paymentSucceeded(orderID, receipt):
            guard case var .paying(order) = state.checkout.status, order.id == orderID else { return }
            order.receipt = receipt
            state.checkout.orders.append(order)
            state.checkout.status = .idle
            state.cart = ShopState.Cart()
        case let .paymentFailed(orderID, reason):
            guard case let .paying(order) = state.checkout.status, order.id == orderID else { return }
            state.checkout.status = .failed(orderID: orderID, reason: reason)
        case .dismissError:
            guard case .failed = state.checkout.status else { return }
            state.checkout.status = .idle
        }
    }
}

/// An amount in cents, shown as `12.34` (or `-10.00`).
public struct Money: CustomStringConvertible, Sendable {
    /// The amount in cents.
    public var cents: Int

    /// An amount in cents.
    public init(_ cents: Int) { self.cents = cents }

    /// `12.34`, `-10.00`.
    public var description: String {
        let sign = cents < 0 ? "-" : ""
        let absolute = abs(cents)
        let fraction = absolute % 100
        return "\(sign)\(absolute / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
