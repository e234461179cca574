public import Foundation
public import Rewind

/// A seeded, scripted customer: browses, fills and trims the cart, tries discount codes and
/// pays, the way real sessions do — including, now and then, the steps behind the seeded bug.
public struct Shopper: SimulatedUser {
    public typealias State = ShopState
    public typealias Action = ShopAction

    private var random: SeededRandom
    private var clock: Date

    /// A customer whose choices follow `seed`.
    ///
    /// - Parameters:
    ///   - seed: Chooses the session: the same seed gives the same actions.
    ///   - start: The simulated time of the first gesture.
    public init(seed: UInt64, start: Date = Date(timeIntervalSince1970: 1_767_258_000)) {
        random = SeededRandom(seed: seed)
        clock = start
    }

    /// Performs one gesture.
    public mutating func performNextGesture(seeing state: ShopState, on store: some StoreType<ShopState, ShopAction>) {
        clock += TimeInterval(random.int(in: 2...45))
        let catalogue = CatalogueScreen(store: store)
        let cart = CartScreen(store: store)
        let checkout = CheckoutScreen(store: store)

        if state.catalogue.products.isEmpty {
            return catalogue.appeared(at: clock)
        }
        if case .failed = state.checkout.status {
            return checkout.errorDismissed()
        }
        let lines = state.cart.lines
        let roll = random.int(below: 100)
        switch roll {
        case ..<38:
            catalogue.addTapped(random.element(of: state.catalogue.products)!.id)
        case ..<48 where !lines.isEmpty:
            let line = random.element(of: lines)!
            cart.quantityStepped(line.productID, to: max(0, line.quantity + (random.chance(60) ? 1 : -1)))
        case ..<66 where !lines.isEmpty:
            cart.removeSwiped(random.element(of: lines)!.productID)
        case ..<78 where state.cart.discount == nil:
            let codes = state.catalogue.discounts.map(\.code) + ["FREESHIP"]
            cart.discountCodeSubmitted(random.element(of: codes)!)
        case ..<81 where state.cart.discount != nil:
            cart.discountRemoved()
        case ..<84 where !lines.isEmpty:
            cart.clearTapped()
        case ..<93 where !lines.isEmpty:
            checkout.payTapped(orderID: random.uuid(), at: clock)
        case ..<95:
            catalogue.appeared(at: clock)
        default:
            catalogue.addTapped(random.element(of: state.catalogue.products)!.id)
        }
    }
}

extension Shop {
    /// The complete action sequence of a scripted shop session: `count` actions, the customer's
    /// and those the effects fed back, each with its source — the same for the same seed.
    ///
    /// - Parameters:
    ///   - count: How many actions.
    ///   - seed: The customer's seed.
    /// - Returns: The actions, in the order the store reduced them.
    public static func sessionActions(count: Int, seed: UInt64) async -> [DispatchedAction<ShopAction>] {
        await SessionRecording.actions(
            count: count,
            initialState: ShopState(),
            reducer: reducer,
            middleware: effects(environment: .simulated),
            user: Shopper(seed: seed)
        )
    }
}
