import Rewind
import RewindExamples

/// `dispatch`: actions per second through a store, against folding the reducer by hand.
///
/// Variants: the bare reducer fold (the ceiling), a store with no middleware, and a store with
/// one no-op middleware that has both hooks (what every recorder-style middleware costs at
/// least). All replay the same generated shop session, cycled to `actions`.
struct DispatchWorkload {
    var session: [ShopAction]
    var actions: Int
    var runs: Int

    func measure() -> WorkloadResult {
        let session = self.session
        let actions = self.actions

        let fold = medianThroughput(actions: actions, runs: runs) {
            var state = ShopState()
            for index in 0..<actions { Shop.reducer(&state, session[index % session.count]) }
            blackHole(state.cart.total)
        }
        let bare = medianThroughput(actions: actions, runs: runs) {
            let store = Store(initialState: ShopState(), reducer: Shop.reducer)
            for index in 0..<actions { store.dispatch(session[index % session.count]) }
            blackHole(store.state.cart.total)
        }
        let noOp = Middleware<ShopState, ShopAction>(willReduce: { _, _, _ in }, didReduce: { _, _, _ in })
        let withMiddleware = medianThroughput(actions: actions, runs: runs) {
            let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: noOp)
            for index in 0..<actions { store.dispatch(session[index % session.count]) }
            blackHole(store.state.cart.total)
        }

        func variant(_ name: String, _ result: (median: Double, all: [Double])) -> WorkloadResult.Variant {
            .init(name: name, actionsPerSecond: result.median, ratioToBaseline: result.median / fold.median, runsActionsPerSecond: result.all)
        }
        return WorkloadResult(
            name: "dispatch",
            baseline: "reducer fold",
            variants: [
                variant("reducer fold (baseline)", fold),
                variant("store, no middleware", bare),
                variant("store, one no-op middleware", withMiddleware),
            ]
        )
    }
}

/// Keeps the optimiser from discarding a result.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
