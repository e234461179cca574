import ArgumentParser
import Foundation
import Rewind
import RewindExamples
import RewindLog
import RewindUpload

/// The shop app as it runs on a user's device, with the black box and the uploader: the child
/// of the device-to-team tests. One launch either crashes or sends.
struct FieldAppCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "field-app",
        abstract: "(for tests) The shop app on a device: records with reports sealed to a key; crashes on the seeded bug, or uploads its outbox.",
        discussion: """
            With --crash: a seeded shopper uses the shop until the cart total goes negative (the \
            seeded bug), then, as a user does, looks at the screen for a moment (--pause) and taps \
            pay, whose screen traps on a negative amount (a failed precondition). It prints \
            `negative after N taps` before the pause. Without --crash: a later launch — the recorder \
            opens (sealing a report of the crashed session into the outbox), and with --upload the \
            uploader sends the outbox to a collector; it prints `delivered N remaining M refused K`.
            """,
        shouldDisplay: false
    )

    static let app = AppIdentity(id: "com.example.shop", version: "1.0", actionSchemaVersion: 1, stateSchemaVersion: 1)

    @Option var log: String
    @Option(help: "The team's public key (`ID BASE64`).") var reportKeyFile: String
    @Flag var crash = false
    @Option var seed: UInt64 = 7
    @Option(help: "Seconds between the bug and the tap that crashes.") var pause = 0.5
    @Option(help: "The collector's base URL.") var upload: String?
    @Option(help: "The app's ingest token.") var token: String?

    func run() async throws {
        var configuration = RecorderConfiguration<ShopState, ShopAction>()
        configuration.reports = ReportOptions(key: try ReportKey(line: try String(contentsOfFile: reportKeyFile, encoding: .utf8)))
        let recorder = Recorder<ShopState, ShopAction>(log: try EventLog(path: log), app: Self.app, configuration: configuration)
        let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: .combine(recorder.middleware, Shop.effects(environment: .simulated)))
        guard crash else {
            // A launch: the recorder marks the earlier session and seals its report (flush waits
            // for the writer, which does both first).
            try await recorder.flush()
            var delivered = 0, remaining = recorder.outbox?.reports().count ?? 0, refused: [String] = []
            if let upload, let token, let outbox = recorder.outbox, let url = URL(string: upload) {
                let result = await ReportUploader(outbox: outbox, endpoint: url, token: token).send()
                (delivered, remaining, refused) = (result.delivered, result.remaining, result.refused)
                if let failure = result.lastFailure { FileHandle.standardError.write(Data("upload: \(failure)\n".utf8)) }
            }
            try await recorder.close()
            for reason in refused { FileHandle.standardError.write(Data("refused: \(reason)\n".utf8)) }
            print("delivered \(delivered) remaining \(remaining) refused \(refused.count)")
            return
        }
        var shopper = Shopper(seed: seed)
        var actions = 0
        await shopper.drive(store) { _ in
            actions += 1
            return store.state.cart.total >= 0 && actions < 5_000
        }
        guard store.state.cart.total < 0 else { throw ValidationError("the seeded bug did not show with seed \(seed)") }
        FileHandle.standardOutput.write(Data("negative after \(actions) taps\n".utf8))
        // The user looks at the cart before tapping pay: the writer commits meanwhile. Flushed
        // too, so that the commit is certain however loaded the machine (a pause alone once left
        // a CI run's report without events); the pause keeps the launch's timing an app's.
        try await recorder.flush()
        try await Task.sleep(for: .seconds(pause))
        payScreenAppeared(total: store.state.cart.total)
    }

    /// The pay screen's check, as an app's code has it: a negative amount is a programming error.
    private func payScreenAppeared(total: Int) {
        precondition(total >= 0, "the amount to pay is negative")
    }
}
