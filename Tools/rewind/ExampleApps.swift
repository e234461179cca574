import RewindCLI
import RewindExamples
import RewindLog

/// The bundled example apps, as the rewind tool replays them.
enum ExampleApps {
    /// The shop's redaction policy: a payment receipt is the payment service's proof of
    /// payment, so it stays out of the log — scrubbed from the action that delivers it and
    /// from every order in the state's snapshots.
    static let shopRedaction = Redaction<ShopState, ShopAction> { action in
        guard case let .checkout(.paymentSucceeded(orderID, _)) = action else { return .keep }
        return .scrub(.checkout(.paymentSucceeded(orderID: orderID, receipt: scrubbed)))
    }
    .scrubbingState(named: "checkout.orders[].receipt") { state in
        for index in state.checkout.orders.indices where state.checkout.orders[index].receipt != nil {
            state.checkout.orders[index].receipt = scrubbed
        }
    }

    /// What a scrubbed receipt reads as.
    static let scrubbed = "•••"

    static let shop = ReplayableApp(
        id: "com.example.shop",
        reducer: Shop.reducer,
        invariants: [
            Invariant(name: "non-negative-total", description: "the cart total is never negative") { $0.cart.total >= 0 },
            Invariant(name: "discount-within-subtotal", description: "a discount never exceeds the subtotal") {
                $0.cart.discountAmount <= $0.cart.subtotal
            },
        ],
        redaction: shopRedaction,
        // Amounts in cents, shown as the app prints them (`24.50`).
        formats: [ValueFormat("price", "unitPrice", "subtotal", "discountAmount", "total", "minimumSubtotal") { Money(Int($0)).description }]
    )

    static let todo = ReplayableApp(
        id: "com.example.todo",
        reducer: Todo.reducer,
        invariants: [
            Invariant(name: "unique-item-ids", description: "no item id appears twice") { state in
                let ids = state.lists.flatMap(\.items).map(\.id)
                return Set(ids).count == ids.count
            },
            Invariant(name: "selection-exists", description: "the selected list exists") { state in
                state.selectedListID.map { id in state.lists.contains { $0.id == id } } ?? true
            },
        ]
    )

    static let all = [shop, todo]
}
