import ArgumentParser
import Foundation
import Rewind
import RewindExamples
import RewindLog

/// (For the tests) Breaks a recorder tap's contract: two threads record through one tap at once.
/// A debug build stops with the tap's message; a release build, which does not check, finishes.
struct TapOverlapCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tap-overlap", abstract: "(for the tests) Record through one tap from two threads at once.", shouldDisplay: false
    )

    @Option var log: String
    @Option var seconds: Double = 10

    func run() throws {
        let recorder = Recorder<ShopState, ShopAction>(at: log, app: AppIdentity(id: "com.example.shop"))
        let tap = recorder.tap(initialState: ShopState())
        let deadline = ContinuousClock.now + .seconds(seconds)
        DispatchQueue.concurrentPerform(iterations: 2) { producer in
            while ContinuousClock.now < deadline {
                tap.didReduce(.cart(.applyDiscount(code: "P\(producer)")), from: ActionSource(), state: ShopState())
            }
        }
        try recorder.close()
        print("no overlap caught")
    }
}
