import Foundation
public import Rewind

extension Shop {
    /// A random shop action for property tests: mostly plausible for `state`, sometimes not
    /// (unknown products, stale order ids, codes that do not exist), so that replay is checked on
    /// the reducer's every path, including the ones a scripted user avoids.
    ///
    /// - Parameters:
    ///   - random: The seeded source.
    ///   - state: The state the action will be dispatched in.
    /// - Returns: An action.
    public static func randomAction(using random: inout SeededRandom, in state: ShopState) -> ShopAction {
        let products = state.catalogue.products.isEmpty ? Product.samples : state.catalogue.products
        let productID = random.chance(90) ? random.element(of: products)!.id : "ghost-\(random.int(below: 5))"
        let lineID = random.element(of: state.cart.lines)?.productID ?? productID
        let orderID: UUID = if case let .paying(order) = state.checkout.status, random.chance(85) { order.id } else { random.uuid() }
        let date = Date(timeIntervalSince1970: 1_767_258_000 + Double(random.int(below: 86_400)))
        switch random.int(below: 15) {
        case 0: return .catalogue(.load(at: date))
        case 1: return .catalogue(.loaded(products: Product.samples, discounts: Discount.samples))
        case 2: return .catalogue(.loadFailed(reason: "offline"))
        case 3, 4, 5: return .cart(.add(productID: productID, quantity: random.int(in: 1...3)))
        case 6: return .cart(.setQuantity(productID: lineID, quantity: random.int(in: 0...5)))
        case 7, 8: return .cart(.remove(productID: lineID))
        case 9: return .cart(.applyDiscount(code: random.element(of: ["SAVE10", "TEA15", "BOGUS"])!))
        case 10: return .cart(.removeDiscount)
        case 11: return .cart(.clear)
        case 12: return .checkout(.submit(orderID: random.uuid(), at: date))
        case 13: return random.chance(70)
            ? .checkout(.paymentSucceeded(orderID: orderID, receipt: "rcpt-\(random.int(below: 1_000))"))
            : .checkout(.paymentFailed(orderID: orderID, reason: "declined"))
        default: return .checkout(.dismissError)
        }
    }
}
