import ArgumentParser
import Foundation
import Rewind
import RewindExamples
import RewindLog

/// (For the tests) Breaks the recorder's single-producer contract: two threads record through
/// one tap at once, or (`--stores`) two stores bound to one recorder's middleware dispatch at
/// once. A debug build stops with the tap's or the middleware's message; what a release build,
/// which does not check, does is undefined.
struct TapOverlapCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tap-overlap", abstract: "(for the tests) Record through one tap (or one middleware) from two threads at once.", shouldDisplay: false
    )

    @Option var log: String
    @Option var seconds: Double = 10
    @Flag(help: "Two stores bound to one recorder's middleware instead of one tap.") var stores = false

    func run() throws {
        let recorder = Recorder<ShopState, ShopAction>(at: log, app: AppIdentity(id: "com.example.shop"))
        let deadline = ContinuousClock.now + .seconds(seconds)
        if stores {
            let bound = (0..<2).map { _ in Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware) }
            DispatchQueue.concurrentPerform(iterations: 2) { producer in
                while ContinuousClock.now < deadline {
                    bound[producer].dispatch(.cart(.applyDiscount(code: "P\(producer)")))
                }
            }
        } else {
            let tap = recorder.tap(initialState: ShopState())
            DispatchQueue.concurrentPerform(iterations: 2) { producer in
                while ContinuousClock.now < deadline {
                    tap.didReduce(.cart(.applyDiscount(code: "P\(producer)")), from: ActionSource(), state: ShopState())
                }
            }
        }
        try recorder.close()
        print("no overlap caught")
    }
}
