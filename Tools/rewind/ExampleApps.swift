import RewindCLI
import RewindExamples

/// The bundled example apps, as the rewind tool replays them.
enum ExampleApps {
    static let shop = ReplayableApp(
        id: "com.example.shop",
        reducer: Shop.reducer,
        invariants: [
            Invariant(name: "non-negative-total", description: "the cart total is never negative") { $0.cart.total >= 0 },
            Invariant(name: "discount-within-subtotal", description: "a discount never exceeds the subtotal") {
                $0.cart.discountAmount <= $0.cart.subtotal
            },
        ]
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
