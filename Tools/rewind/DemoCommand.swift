import ArgumentParser
import Foundation
import Rewind
import RewindExamples
import Synchronization

/// `rewind demo`: drives the bundled shop app through a scripted, seeded session and prints
/// its timeline — every action with the source that dispatched it and the cart total after it.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run a scripted session of the bundled shop app and print its timeline.",
        discussion: """
            The shop has a seeded bug: a fixed discount applied to a full cart stays when items \
            are removed, so the cart total can go negative. Watch the total column.
            """
    )

    @Option(help: "How many actions the session records.")
    var actions = 60

    @Option(help: "The seed of the scripted customer; the same seed gives the same session.")
    var seed: UInt64 = 7

    func validate() throws {
        guard actions > 0 else { throw ValidationError("--actions must be at least 1") }
    }

    func run() async throws {
        let printed = Mutex(0)
        let timeline = Middleware<ShopState, ShopAction>(didReduce: { dispatched, state, _ in
            let seq = printed.withLock { count in
                count += 1
                return count
            }
            let marker = state.cart.total < 0 ? "  ← total is negative" : ""
            print(
                String(seq).leftPadded(to: 4),
                "\(dispatched.source.file):\(dispatched.source.line)".rightPadded(to: 38),
                String(describing: dispatched.action).replacingOccurrences(of: "RewindExamples.", with: "")
                    .prefix(70).rightPadded(to: 70),
                "total", Money(state.cart.total).description.leftPadded(to: 8) + marker
            )
        })
        let store = Store(
            initialState: ShopState(),
            reducer: Shop.reducer,
            middleware: .combine(Shop.effects(environment: .simulated), timeline)
        )
        var shopper = Shopper(seed: seed)
        await shopper.drive(store, while: { _ in printed.withLock { $0 } < actions })

        let final = store.state
        print("\n\(printed.withLock { $0 }) actions, \(final.checkout.orders.count) orders paid, cart total \(Money(final.cart.total))")
    }
}

/// Cents as `12.34`.
struct Money: CustomStringConvertible {
    var cents: Int
    init(_ cents: Int) { self.cents = cents }
    var description: String {
        let absolute = abs(cents)
        let fraction = absolute % 100
        return "\(cents < 0 ? "-" : "")\(absolute / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}

extension StringProtocol {
    func leftPadded(to width: Int) -> String {
        count >= width ? String(self) : String(repeating: " ", count: width - count) + self
    }

    func rightPadded(to width: Int) -> String {
        count >= width ? String(self) : self + String(repeating: " ", count: width - count)
    }
}
