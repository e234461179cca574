import Rewind

/// The example shop: a catalogue, a cart with discount codes, and a checkout that charges
/// through a payment effect.
///
/// - ``ShopState`` / ``ShopAction``: the app's state and its nested actions.
/// - ``Shop/reducer``: the pure logic.
/// - ``Shop/effects(environment:)``: loads the catalogue and charges payments, feeding results
///   back as actions.
/// - ``CatalogueScreen``, ``CartScreen``, ``CheckoutScreen``: the imperative shell a UI would
///   call; every dispatch there is a real call site, so recorded sources point into them.
/// - ``Shopper``: a seeded, scripted user; ``Shop/sessionActions(count:seed:)`` records a
///   reproducible session.
///
/// ## The seeded bug
/// The shop ships with a realistic bug for Rewind to find. The `SAVE10` code takes a fixed
/// 10.00 off an order of at least 20.00. The minimum is checked only when the code is applied:
/// when items are removed afterwards, the discount stays, and once the subtotal falls below
/// 10.00 the cart total goes negative (an empty cart with the code applied totals −10.00).
/// The payment service then declines the order ("amount must be positive").
///
/// `rewind bisect` finds the first action that makes `cart.total` negative — the removal — and
/// its source in ``CartScreen``. Percentage codes cannot trigger it.
public enum Shop {
    /// The fixed-amount code behind the seeded bug.
    public static let fixedDiscountCode = "SAVE10"
}
