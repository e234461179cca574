import ArgumentParser
import Foundation
import Rewind
import RewindCLI
import RewindExamples
import RewindLog
import Synchronization

/// `rewind demo`: records a scripted, seeded session of the bundled shop app into a log, prints
/// its timeline as it goes, and says what to try next.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Record a scripted session of the bundled shop app into a Rewind log.",
        discussion: """
            The shop has a seeded bug: a fixed discount applied to a full cart stays when items \
            are removed, so the cart total can go negative. Watch the total column, then look \
            for the bug in the log.

            An existing demo log at the output path is replaced; any other file is left alone.
            """
    )

    /// The longest demo that takes a snapshot at every interval, whatever the state's size.
    static let everyIntervalUpTo = 2_000

    /// The identity the demo records under.
    static let app = AppIdentity(id: "com.example.shop", version: "1.0", actionSchemaVersion: 1, stateSchemaVersion: 1)

    @Option(name: .shortAndLong, help: "The log file to record into.")
    var output = "rewind-demo.rewind"

    @Option(help: "How many actions the session records, up to 1,000,000 (the last gesture's effects may add one or two).")
    var actions = 60

    @Option(help: "The seed of the scripted customer; the same seed gives the same session.")
    var seed: UInt64 = 7

    @Option(help: "Take a snapshot of the state every this many actions (beyond 2,000 actions, further apart as the state grows).")
    var snapshotInterval = 25

    @Option(help: "The payload codec: json (readable with sqlite3) or binary (compact and fast).")
    var codec = "json"

    @Option(
        name: .customLong("key-file"),
        help: ArgumentHelp("Encrypt the session with the first key in this key file (`ID BASE64` lines).", valueName: "path")
    )
    var keyFile: String?

    @Option(
        name: .customLong("new-key-file"),
        help: ArgumentHelp("Encrypt the session with a new random key, written to this key file (which must not exist).", valueName: "path")
    )
    var newKeyFile: String?

    @Flag(help: "Print only the summary, not every action.")
    var quiet = false

    func validate() throws {
        // A demo, not a load generator: rewind-bench records the large logs.
        guard (1...1_000_000).contains(actions) else { throw ValidationError("--actions is 1 to 1,000,000") }
        guard snapshotInterval >= 0 else { throw ValidationError("--snapshot-interval cannot be negative") }
        guard ["json", "binary"].contains(codec) else { throw ValidationError("--codec is json or binary") }
        guard keyFile == nil || newKeyFile == nil else { throw ValidationError("give --key-file or --new-key-file, not both") }
    }

    /// The key file the session is encrypted with, either way.
    private var keyFilePath: String? { keyFile ?? newKeyFile }

    func run() async throws {
        try prepareOutput()
        let log = try EventLog(path: output, keys: try keys())
        var configuration = RecorderConfiguration<ShopState, ShopAction>()
        configuration.snapshotInterval = snapshotInterval
        // A short demo: a snapshot at every interval, so seeks and verify have some to show. A
        // long one keeps the default budget (RecorderConfiguration.snapshotBudget): the shop's
        // state grows with every order, and a snapshot every 25 actions of 1,000,000 would
        // write gigabytes.
        if actions <= Self.everyIntervalUpTo { configuration.snapshotBudget = .infinity }
        configuration.codec = codec == "binary" ? BinaryPayloadCodec() : JSONPayloadCodec()
        configuration.redaction = ExampleApps.shopRedaction
        configuration.sessionInfo = #"{"demo":true,"seed":\#(seed)}"#
        // The demo is a script, not an app someone is waiting on: a disk that is slow for a
        // moment (one commit's sync taking seconds on a loaded machine) makes it wait rather
        // than leave a gap in the log it exists to make.
        configuration.stallLimit = .seconds(Int64.max)
        // The whole session, however long: the log exists to be explored.
        configuration.retention = nil
        let recorder = Recorder<ShopState, ShopAction>(log: log, app: Self.app, configuration: configuration)

        let printed = Mutex(0)
        let firstNegative = Mutex<Int?>(nil)
        let firstPayment = Mutex<Int?>(nil)
        let quiet = self.quiet
        let timeline = Middleware<ShopState, ShopAction>(didReduce: { dispatched, state, _ in
            let seq = printed.withLock { count in
                count += 1
                return count
            }
            if state.cart.total < 0 { firstNegative.withLock { $0 = $0 ?? seq } }
            if case .checkout(.paymentSucceeded) = dispatched.action { firstPayment.withLock { $0 = $0 ?? seq } }
            guard !quiet else { return }
            let marker = state.cart.total < 0 ? "  ← total is negative" : ""
            print(
                String(seq).leftPadded(to: 4),
                "\(dispatched.source.file):\(dispatched.source.line)".rightPadded(to: 38),
                ActionCaseName.of(dispatched.action).rightPadded(to: 24),
                "total", Money(state.cart.total).description.leftPadded(to: 8) + marker
            )
        })
        let store = Store(
            initialState: ShopState(),
            reducer: Shop.reducer,
            middleware: .combine(recorder.middleware, Shop.effects(environment: .simulated), timeline)
        )
        var shopper = Shopper(seed: seed)
        await shopper.drive(store, while: { _ in printed.withLock { $0 } < actions })
        try await recorder.close()
        let session = try log.sessions().last
        try log.close()

        let size = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
        let final = store.state
        let bug = firstNegative.withLock { $0 }
        let seq = bug.map(String.init) ?? "SEQ"
        // The log as every command names it: with the key file when it is encrypted.
        let output = self.output + (keyFilePath.map { " --key-file \($0)" } ?? "")
        let seen = bug.map { "The cart total first went negative at seq \($0). " } ?? "The seeded bug did not show in this session; try more --actions or another --seed. "
        let suggestions = [
            ("rewind bisect \(output) --invariant non-negative-total", "the first action that breaks it"),
            ("rewind diff \(output) --at \(seq)", "what that action changed"),
            ("rewind state \(output) --at \(seq)", "the whole state after it"),
            ("rewind log \(output) --case 'cart.*' --to \(seq)", "the cart actions leading there"),
            ("rewind replay \(output) --without \(seq) --at \(seq)", "what if it had not happened"),
        ] + (firstPayment.withLock { $0 }.map { [("rewind why \(output) --at \($0)", "why a payment arrived: the tap that led to it")] } ?? []) + [
            ("rewind verify \(output)", "does the reducer still reproduce it?"),
        ]
        let width = suggestions.map(\.0.count).max() ?? 0
        print("""

            Recorded \(session?.eventCount ?? 0) actions into \(self.output)\(keyFilePath == nil ? "" : ", encrypted") (session \(session?.id ?? 0), \(size / 1024) KiB): \
            \(final.checkout.orders.count) orders paid, cart total \(Money(final.cart.total)).
            \(seen)Try next:
            \(suggestions.map { "  " + $0.0.rightPadded(to: width) + "   # " + $0.1 }.joined(separator: "\n"))
              sqlite3 \(self.output) 'select seq, action, file, line from timeline where action like "cart.%"'
            """)
    }

    /// The keys to record with: the first in `--key-file` is the current one, as every
    /// command reads a key file; `--new-key-file` makes one, readable by its owner only, with a
    /// new random key. (`--key-file` naming a missing file made one before the vocabulary:
    /// still, with a note.)
    private func keys() throws -> LogKeys {
        if let keyFile {
            if FileManager.default.fileExists(atPath: keyFile) {
                do {
                    let keys = try LogKeys.reading(keyFileAt: keyFile)
                    return LogKeys(current: keys.others.first, others: keys.others)
                } catch {
                    throw ValidationError("--key-file \(keyFile): \(error.reason)")
                }
            }
            Deprecated.note("--key-file naming a missing file", use: "--new-key-file \(keyFile)")
            return try LogKeys(current: Self.newKey(at: keyFile, option: "--key-file"))
        }
        guard let newKeyFile else { return LogKeys() }
        guard !FileManager.default.fileExists(atPath: newKeyFile) else {
            throw ValidationError("--new-key-file \(newKeyFile): the file exists; give it with --key-file, or another path")
        }
        return try LogKeys(current: Self.newKey(at: newKeyFile, option: "--new-key-file"))
    }

    /// A new random key, written to a new key file at `path` readable by its owner only.
    private static func newKey(at path: String, option: String) throws -> LogKey {
        let key = try LogKey.random(id: "demo")
        let text = "# Rewind log keys: one `ID BASE64` line per key. Keep this file secret: it reads the log.\n\(key.keyFileLine)\n"
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw ValidationError("\(option) \(path): cannot create the file")
        }
        return key
    }

    /// Makes room for a fresh log: removes a previous demo log at the output path, refuses
    /// anything else.
    private func prepareOutput() throws {
        guard FileManager.default.fileExists(atPath: output) else { return }
        let existing: [LogSession]
        do {
            existing = try EventLog(path: output, mode: .readOnly).sessions()
        } catch {
            throw ValidationError("\(output) exists and is not a demo log (\(error)); choose another --output")
        }
        guard existing.allSatisfy({ $0.app.id == Self.app.id && $0.info?.contains(#""demo":true"#) == true }) else {
            throw ValidationError("\(output) is a Rewind log that the demo did not record; choose another --output")
        }
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: output + suffix) {
            try FileManager.default.removeItem(atPath: output + suffix)
        }
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
