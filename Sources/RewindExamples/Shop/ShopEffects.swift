import Foundation
public import Rewind

/// The outside world the shop talks to, injected when its middleware is built.
public struct ShopEnvironment: Sendable {
    /// What the catalogue service returns.
    public struct CatalogueResponse: Sendable, Equatable {
        /// The products on sale.
        public var products: [Product]
        /// The discount codes on offer.
        public var discounts: [Discount]

        /// Creates a response.
        public init(products: [Product], discounts: [Discount]) {
            self.products = products
            self.discounts = discounts
        }
    }

    /// A payment the service declined.
    public struct PaymentDeclined: Error, Equatable, Sendable {
        /// Why.
        public var reason: String

        /// Creates a decline.
        public init(reason: String) { self.reason = reason }
    }

    /// Fetches what is on sale.
    public var fetchCatalogue: @Sendable () async throws -> CatalogueResponse
    /// Charges an order and returns a receipt, or throws ``PaymentDeclined``.
    public var charge: @Sendable (Order) async throws -> String

    /// Creates an environment.
    public init(
        fetchCatalogue: @escaping @Sendable () async throws -> CatalogueResponse,
        charge: @escaping @Sendable (Order) async throws -> String
    ) {
        self.fetchCatalogue = fetchCatalogue
        self.charge = charge
    }

    /// A deterministic, in-process stand-in for the real services: the sample catalogue, and a
    /// payment service that declines amounts that are not positive or exceed 500.00 and
    /// otherwise returns a receipt derived from the order id.
    public static let simulated = ShopEnvironment(
        fetchCatalogue: { CatalogueResponse(products: Product.samples, discounts: Discount.samples) },
        charge: { order in
            guard order.total > 0 else { throw PaymentDeclined(reason: "amount must be positive") }
            guard order.total <= 50_000 else { throw PaymentDeclined(reason: "amount exceeds the card limit") }
            return "rcpt-" + order.id.uuidString.prefix(8).lowercased()
        }
    )
}

extension Product {
    /// The sample catalogue the simulated environment serves.
    public static let samples: [Product] = [
        Product(id: "tea-earl", name: "Earl Grey, 100 g", price: 650),
        Product(id: "tea-sencha", name: "Sencha, 100 g", price: 890),
        Product(id: "mug-blue", name: "Blue mug", price: 1_200),
        Product(id: "pot-glass", name: "Glass teapot", price: 3_450),
        Product(id: "kettle", name: "Gooseneck kettle", price: 5_900),
        Product(id: "honey", name: "Acacia honey", price: 790),
        Product(id: "biscuits", name: "Shortbread", price: 420),
        Product(id: "strainer", name: "Steel strainer", price: 380),
    ]
}

extension Discount {
    /// The codes the simulated environment offers; `SAVE10` is the one behind the seeded bug.
    public static let samples: [Discount] = [
        Discount(code: Shop.fixedDiscountCode, kind: .amountOff(1_000), minimumSubtotal: 2_000),
        Discount(code: "TEA15", kind: .percentOff(15), minimumSubtotal: 0),
    ]
}

extension Shop {
    /// The shop's effects: loads the catalogue when asked and charges an order when checkout is
    /// submitted, feeding each result back as an action.
    ///
    /// - Parameter environment: The services to call.
    /// - Returns: The middleware.
    public static func effects(environment: ShopEnvironment) -> Middleware<ShopState, ShopAction> {
        Middleware(didReduce: { dispatched, state, context in
            switch dispatched.action {
            case .catalogue(.load):
                context.run(.run(id: "catalogue", cancelInFlight: true) { send in
                    do {
                        let response = try await environment.fetchCatalogue()
                        send(.catalogue(.loaded(products: response.products, discounts: response.discounts)))
                    } catch {
                        send(.catalogue(.loadFailed(reason: "\(error)")))
                    }
                })
            case .checkout(.submit):
                guard case let .paying(order) = state.checkout.status else { return }
                context.run(.run(id: "payment") { send in
                    do {
                        let receipt = try await environment.charge(order)
                        send(.checkout(.paymentSucceeded(orderID: order.id, receipt: receipt)))
                    } catch let declined as ShopEnvironment.PaymentDeclined {
                        send(.checkout(.paymentFailed(orderID: order.id, reason: declined.reason)))
                    }
                })
            default:
                break
            }
        })
    }
}
