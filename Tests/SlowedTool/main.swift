// A later build of the shop's replay tool in which one case got slow: `checkout.submit` spins
// for 100 ms in its reducer. `rewind profile` must name it, and `--baseline` must flag it in
// every pairing, both ways round: so the spin is longer than the system preempts a test's
// process under a loaded CI run (at 10 ms, the fast build's three submits once took longer
// than the slowed build's, in one pairing of three).
import Foundation
import Rewind
import RewindCLI
import RewindExamples

/// How long the slowed case spins.
let slowdown = Duration.milliseconds(100)

let slowed = Reducer<ShopState, ShopAction> { state, action in
    if case .checkout(.submit) = action {
        // Busy, not asleep: a reducer that computes too much, as a real regression would.
        let clock = ContinuousClock(), until = clock.now + slowdown
        while clock.now < until {}
    }
    Shop.reducer(&state, action)
}

await RewindTool.main(apps: [ReplayableApp(id: "com.example.shop", reducer: slowed)])
