public import Foundation
public import RewindCoding

/// A product the shop sells. Prices are in cents.
@BinaryCodable
public struct Product: Codable, Equatable, Hashable, Sendable, Identifiable {
    /// The stock-keeping unit.
    public var id: String
    /// The display name.
    public var name: String
    /// The unit price in cents.
    public var price: Int

    /// Creates a product.
    public init(id: String, name: String, price: Int) {
        self.id = id
        self.name = name
        self.price = price
    }
}

/// A discount code and what it takes off.
@BinaryCodable
public struct Discount: Codable, Equatable, Hashable, Sendable {
    /// What the discount takes off.
    @BinaryCodable
    public enum Kind: Codable, Equatable, Hashable, Sendable {
        /// A fixed amount, in cents.
        case amountOff(Int)
        /// A percentage of the subtotal.
        case percentOff(Int)
    }

    /// The code a customer types.
    public var code: String
    /// What it takes off.
    public var kind: Kind
    /// The subtotal, in cents, the code requires.
    public var minimumSubtotal: Int

    /// Creates a discount.
    public init(code: String, kind: Kind, minimumSubtotal: Int) {
        self.code = code
        self.kind = kind
        self.minimumSubtotal = minimumSubtotal
    }
}

/// One product in the cart.
public struct CartLine: Codable, Equatable, Hashable, Sendable {
    /// The product's id.
    public var productID: String
    /// The product's name when it was added.
    public var name: String
    /// The unit price in cents when it was added.
    public var unitPrice: Int
    /// How many.
    public var quantity: Int

    /// Creates a cart line.
    public init(productID: String, name: String, unitPrice: Int, quantity: Int) {
        self.productID = productID
        self.name = name
        self.unitPrice = unitPrice
        self.quantity = quantity
    }
}

/// A placed and paid order.
public struct Order: Codable, Equatable, Hashable, Sendable {
    /// The order's id, chosen when checkout was submitted.
    public var id: UUID
    /// What was bought.
    public var lines: [CartLine]
    /// The amount charged, in cents.
    public var total: Int
    /// When checkout was submitted.
    public var placedAt: Date
    /// The payment service's receipt, once paid.
    public var receipt: String?

    /// Creates an order.
    public init(id: UUID, lines: [CartLine], total: Int, placedAt: Date, receipt: String? = nil) {
        self.id = id
        self.lines = lines
        self.total = total
        self.placedAt = placedAt
        self.receipt = receipt
    }
}

/// The whole shop's state.
public struct ShopState: Codable, Equatable, Hashable, Sendable {
    /// What can be bought.
    public struct Catalogue: Codable, Equatable, Hashable, Sendable {
        /// The products on sale.
        public var products: [Product] = []
        /// The discount codes on offer.
        public var discounts: [Discount] = []
        /// Whether a load is under way.
        public var isLoading = false
        /// Why the last load failed, if it did.
        public var loadError: String?
        /// When the last load was requested.
        public var requestedAt: Date?

        /// Nothing loaded yet.
        public init() {}
    }

    /// What the customer is about to buy.
    public struct Cart: Codable, Equatable, Hashable, Sendable {
        /// The lines, in the order they were added.
        public var lines: [CartLine] = []
        /// The discount applied, if any.
        public var discount: Discount?
        /// The sum of the lines, in cents.
        public var subtotal = 0
        /// What the discount takes off, in cents.
        public var discountAmount = 0
        /// What the customer pays, in cents.
        public var total = 0
        /// A message for the customer (a code that did not apply, an unknown product).
        public var message: String?

        /// An empty cart.
        public init() {}
    }

    /// Where checkout stands.
    public struct Checkout: Codable, Equatable, Hashable, Sendable {
        /// The payment state.
        public enum Status: Codable, Equatable, Hashable, Sendable {
            /// Nothing under way.
            case idle
            /// Waiting for the payment service.
            case paying(Order)
            /// The payment service declined.
            case failed(orderID: UUID, reason: String)
        }

        /// The payment state.
        public var status: Status = .idle
        /// Orders paid for, oldest first.
        public var orders: [Order] = []

        /// No payment under way, no orders.
        public init() {}
    }

    /// What can be bought.
    public var catalogue = Catalogue()
    /// What the customer is about to buy.
    public var cart = Cart()
    /// Where checkout stands.
    public var checkout = Checkout()

    /// An empty shop, before the catalogue has loaded.
    public init() {}
}
