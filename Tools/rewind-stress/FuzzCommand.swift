import ArgumentParser
import Foundation
import Rewind
import RewindExamples
import RewindLog
import Synchronization

/// `rewind-stress fuzz`: damages copies of a recorded log (or of its export) and runs every
/// read path on each, in-process. Passes when every case ends in results or clear
/// `EventLogError`s, leaves its input file unchanged and finishes within the timeout; a trap
/// ends the process, so the case being run is printed first (`--only N` re-runs it alone).
struct FuzzCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fuzz",
        abstract: "Damage copies of a log or its export and run every read path on each.",
        discussion: """
            log: bit flips, truncation at every page boundary, zeroed and swapped pages, a wrong \
            application_id, a garbage -wal, dropped tables and columns, NULLs, values of the wrong type, \
            ids that point nowhere, unknown codecs. import: cut, duplicated, reordered and retyped \
            lines, numbers out of range, invalid UTF-8, a 100 MB line. Each case is seeded from \
            --seed and its number, so any case can be run again alone with --only.
            """
    )

    @Option(help: "What to damage: log or import.")
    var target = "log"

    @Option(help: "How many damaged copies to test (cases a mutation does not apply to are not counted).")
    var cases = 1_000

    @Option(help: "The seed every case's mutation is drawn from.")
    var seed: UInt64 = 1

    @Option(help: "Run only this case (to reproduce a failure).")
    var only: Int?

    @Option(help: "Start at this case number (to go on from a run that stopped).")
    var first = 0

    @Option(help: "A case still running after this many seconds is a hang.")
    var timeoutSeconds = 120

    @Flag(help: "Print the first error message of each kind, as a user would read it.")
    var messages = false

    @Option(help: "Where to work (default: a new temporary folder, removed at the end).")
    var work: String?

    func validate() throws {
        guard ["log", "import"].contains(target) else { throw ValidationError("--target is log or import") }
        guard (1...100_000_000).contains(cases) else { throw ValidationError("--cases is 1 to 100,000,000") }
        guard timeoutSeconds > 0 else { throw ValidationError("--timeout-seconds must be positive") }
        if let only { guard only >= 0 else { throw ValidationError("--only is a case number, 0 or more") } }
        guard (0...Int(Int32.max)).contains(first) else { throw ValidationError("--first is a case number, 0 or more") }
    }

    func run() throws {
        let folder = work ?? NSTemporaryDirectory() + "rewind-fuzz-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { if work == nil { try? FileManager.default.removeItem(atPath: folder) } }
        let base = folder + "/base.rewind"
        try? FileManager.default.removeItem(atPath: base)
        try Self.recordBase(at: base)
        let baseBytes = try Data(contentsOf: URL(fileURLWithPath: base))
        let schema = try LogMutation.Schema(path: base)
        let export = URL(fileURLWithPath: folder + "/base.jsonl")
        try? FileManager.default.removeItem(at: export)
        _ = try EventLog(path: base, mode: .readOnly).export(to: export)
        let exportBytes = try Data(contentsOf: export)
        let exportLines = exportBytes.split(separator: UInt8(ascii: "\n")).count
        // Import's structure-aware cases come first, then random damage.
        let edges = target == "import" ? ExportMutation.edges(of: exportBytes) : []
        print("fuzz \(target): base log \(baseBytes.count) bytes, \(schema.pageCount) pages; export \(exportBytes.count) bytes, \(exportLines) lines; seed \(seed)\(edges.isEmpty ? "" : "; \(edges.count) structure-aware cases first")")

        let watchdog = Watchdog(timeout: Double(timeoutSeconds))
        watchdog.start()
        var tally = FuzzTally()
        let started = Date()
        var index = only ?? first
        while tally.cases < (only == nil ? cases : 1) {
            defer { index += 1 }
            var random = SeededRandom(seed: seed &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15)
            let scratch = folder + "/case"
            try? FileManager.default.removeItem(atPath: scratch)
            try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
            let path = scratch + "/damaged.rewind"
            let what: String
            let readPath: String
            if target == "log" {
                let mutation = LogMutation.draw(case: index, schema: schema, random: &random)
                what = mutation.description
                guard try mutation.apply(to: path, bytes: baseBytes, pageSize: schema.pageSize, random: &random) else {
                    tally.notApplicable += 1
                    if only != nil { print("case \(index): \(what) does not apply to this log"); return }
                    continue
                }
                readPath = path
            } else {
                let mutation = index < edges.count
                    ? edges[index] : ExportMutation.draw(case: index, lines: exportLines, bytes: exportBytes.count, random: &random)
                what = mutation.description
                let damaged = URL(fileURLWithPath: scratch + "/damaged.jsonl")
                try mutation.apply(to: exportBytes, random: &random).write(to: damaged)
                readPath = damaged.path
            }
            let before = try Data(contentsOf: URL(fileURLWithPath: readPath))
            // Printed before the case runs: if it traps, this is the last line before the crash report.
            FileHandle.standardError.write(Data("case \(index): \(what)\n".utf8))
            watchdog.begin(case: index, what: what)
            let outcomes: ReadPaths
            if target == "log" {
                outcomes = ReadPaths.run(on: readPath, scratch: scratch)
            } else {
                var paths = ReadPaths()
                let imported = scratch + "/imported-from-damaged.rewind"
                let log = paths.step("import") { () throws(EventLogError) in try EventLog.importLog(from: URL(fileURLWithPath: readPath), to: imported) }
                try? log?.close()
                outcomes = log == nil ? paths : ReadPaths.run(on: imported, scratch: scratch)
            }
            let seconds = watchdog.end()
            let after = try Data(contentsOf: URL(fileURLWithPath: readPath))
            tally.add(case: index, what: what, outcomes: outcomes, inputChanged: before != after, seconds: seconds)
            if only != nil { print(outcomes.outcomes.map { "\($0.step): \($0.outcome)" }.joined(separator: "\n")) }
            if tally.cases % 10_000 == 0 {
                print("fuzz \(target): \(tally.cases) cases, \(tally.failures.count) failures, \(Int(Date().timeIntervalSince(started))) s")
            }
        }
        print(tally.summary(target: target, seconds: Date().timeIntervalSince(started), showExamples: messages))
        // Every case runs in this process: its high-water mark bounds what any one case took.
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let peakMB = usage.ru_maxrss / 1_024      // kilobytes on Linux
        #else
        getrusage(RUSAGE_SELF, &usage)
        let peakMB = usage.ru_maxrss / 1_048_576  // bytes on Darwin
        #endif
        print("fuzz \(target): peak memory \(peakMB) MB")
        if !tally.failures.isEmpty { throw ExitCode(1) }
    }

    /// The key the base log's encrypted session is recorded with, and every read path reads with.
    static let key = try! LogKey(id: "fuzz", bytes: Data(repeating: 0x5A, count: 32))

    /// Three shop sessions with periodic snapshots, one per standard codec and one encrypted:
    /// every table, both payload encodings and sealed values for the mutations to reach.
    static func recordBase(at path: String) throws {
        let actions = SessionSource.shopActions(seed: 3).prefix(300)
        for (codec, key) in [(JSONPayloadCodec() as any PayloadCodec, nil), (BinaryPayloadCodec(), nil), (BinaryPayloadCodec(), Self.key)] {
            let log = try EventLog(path: path, keys: LogKeys(current: key))
            var configuration = RecorderConfiguration<ShopState, ShopAction>()
            configuration.snapshotInterval = 60
            configuration.snapshotBudget = .infinity
            configuration.codec = codec
            let recorder = Recorder<ShopState, ShopAction>(log: log, app: AppIdentity(id: "com.example.shop"), configuration: configuration)
            let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder.middleware)
            for dispatched in actions { store.dispatch(dispatched.action, from: dispatched.source) }
            try recorder.close()
            try log.close()
        }
    }
}

/// What the cases ended in.
struct FuzzTally {
    var cases = 0
    var notApplicable = 0
    var slowest: (seconds: Double, case: Int) = (0, 0)
    /// Per step, how often it ended in each outcome.
    var outcomes: [String: [String: Int]] = [:]
    var failures: [String] = []
    /// The first message seen for each step and error case: what a user would read.
    var examples: [String: String] = [:]

    mutating func add(case index: Int, what: String, outcomes paths: ReadPaths, inputChanged: Bool, seconds: Double) {
        cases += 1
        if seconds > slowest.seconds { slowest = (seconds, index) }
        for (step, outcome) in paths.outcomes { outcomes[step, default: [:]][outcome, default: 0] += 1 }
        for (key, message) in paths.messages where examples[key] == nil { examples[key] = message }
        if inputChanged { failures.append("case \(index) (\(what)): the input file changed") }
    }

    func summary(target: String, seconds: Double, showExamples: Bool) -> String {
        var lines = [
            "fuzz \(target): \(cases) cases in \(Int(seconds)) s (\(notApplicable) drawn mutations did not apply and were not counted); "
                + "slowest case \(slowest.case), \(String(format: "%.2f", slowest.seconds)) s; \(failures.count) failures",
        ]
        for step in outcomes.keys.sorted() {
            let counts = outcomes[step]!.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }
            lines.append("  \(step): " + counts.joined(separator: ", "))
        }
        if showExamples {
            lines.append("first message of each kind:")
            lines += examples.keys.sorted().map { "  \($0): \(examples[$0]!.prefix(300))" }
        }
        lines += failures.prefix(20).map { "  FAILED " + $0 }
        return lines.joined(separator: "\n")
    }
}

/// Ends the process when a case runs longer than the timeout: a hang is a failure, reported
/// with the case that hung.
final class Watchdog: Sendable {
    private let timeout: Double
    private let current = Mutex<(index: Int, what: String, started: Date)?>(nil)

    init(timeout: Double) {
        self.timeout = timeout
    }

    func start() {
        let thread = Thread { [self] in
            while true {
                Thread.sleep(forTimeInterval: 1)
                if let running = current.withLock({ $0 }), Date().timeIntervalSince(running.started) > timeout {
                    FileHandle.standardError.write(Data("HANG: case \(running.index) (\(running.what)) ran over \(Int(timeout)) s\n".utf8))
                    exit(3)
                }
            }
        }
        thread.start()
    }

    func begin(case index: Int, what: String) {
        current.withLock { $0 = (index, what, Date()) }
    }

    /// Ends the case; returns how long it took.
    func end() -> Double {
        current.withLock { running in
            defer { running = nil }
            return running.map { Date().timeIntervalSince($0.started) } ?? 0
        }
    }
}
