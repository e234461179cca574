import ArgumentParser
import Foundation
import Rewind
import RewindExamples
import RewindLog
#if PostgreSQL
import PostgresNIO
import RewindPostgres
#endif

/// `rewind-bench`: measures Rewind's workloads side by side with their baselines in one run.
///
/// Build it in release mode: `swift run -c release rewind-bench`.
@main
struct RewindBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rewind-bench",
        abstract: "Measure Rewind's workloads against their baselines (run with -c release).",
        discussion: """
            Workloads: dispatch (store with the recorder vs one no-op middleware), record (actions \
            committed to disk vs raw sqlite3_* inserts of the same encoded rows), defaults (the \
            shop recorded with the default configuration vs periodic snapshots off: time, bytes, \
            longest dispatch), replay (folding a \
            log from disk vs reading and decoding it), seek (state(at:) at random seqs), size \
            (bytes per event on disk), memory (peak resident memory of a full replay), encryption \
            (recording and replaying with a key vs in the clear), inspector (`rewind serve` over HTTP \
            on a 10,000,000-event log vs the same reads in process; not in the default list: it \
            records the log first, or reuses --inspector-log), postgres (push into a store vs COPY of the \
            same rows, several pushers at once, and fleet questions over a store vs over the file; not in \
            the default list: it needs --postgres URL, e.g. from Tools/postgres.sh start DIR), launch (what \
            starting to record costs the calling thread: opening a log, then recorder, store and first \
            dispatch, on a new file and an existing one, vs a store alone; not in the default list), \
            recorder-memory (the peak resident memory recording adds to the shop app, each run in a process of \
            its own, vs the store alone), report (sealing and opening a crash report, vs exporting its window; \
            not in the default list), json-decoding (the JSON codec's payloads decoded by the codec's generated \
            readers, by Foundation, parsed alone, and by the decoding spike's tape and lazy containers, vs \
            the binary codec; not in the default list). Each runs \
            --runs times after a warm-up; figures are medians.
            """
    )

    @Option(help: "Actions per dispatch run.") var actions = 1_000_000
    @Option(help: "Actions per timed burst of the dispatch workload (the recorder is flushed between bursts, untimed).") var burst = 2_048
    @Option(help: "Actions per record run.") var recordActions = 200_000
    @Option(help: "Actions per run of the defaults workload.") var defaultsActions = 100_000
    @Option(help: "Actions per run of the encryption workload.") var encryptionActions = 100_000
    @Option(help: "Rows per transaction in the record workload (recorder and raw baseline).") var batchSize = 1_000
    @Option(help: "Actions in the replay, seek and memory workloads' log.") var replayActions = 1_000_000
    @Option(help: "Events in the inspector workload's log.") var inspectorEvents = 10_000_000
    @Option(help: "Calls per measurement in the inspector workload.") var inspectorCalls = 200
    @Option(help: "The inspector workload's log: reused when it exists, recorded there and kept otherwise.") var inspectorLog: String?
    @Flag(help: "Also seek in and replay a 10,000,000-event log.") var large = false
    @Option(help: "Random seeks per log.") var seeks = 200
    @Option(help: "Timed runs per variant (the median is reported).") var runs = 5
    @Option(help: "Seed of the generated sessions.") var seed: UInt64 = 7
    @Option(help: "Samples of the launch workload, each on a log of its own.") var launchSamples = 30
    @Option(help: "Actions in the report workload's session (a heavy tester's day).") var reportActions = 20_000
    @Option(help: "The launch workload also launches on a log of this many MB that needs a migration (at most 6 samples; 0: none).") var launchLargeMb = 0
    @Option(help: "Workloads to run.") var workload: [String] = ["dispatch", "record", "defaults", "replay", "seek", "size", "memory", "encryption", "recorder-memory"]
    @Option(help: .hidden) var memoryProbe: String?
    @Option(help: .hidden) var floorServer: String?
    @Option(help: "Reports per run of the collect workload.") var collectReports = 10_000
    @Option(help: "Concurrent uploaders in the collect workload.") var collectUploaders = 50
    @Option(help: "The most MB of reports in a collect run (sizes are scaled down to fit).") var collectMegabytes = 500
    @Option(help: "Codecs for the record, size and replay workloads.") var codec: [String] = ["json", "binary"]
    @Flag(help: "Print one JSON object instead of tables.") var json = false
    @Option(help: ArgumentHelp("Run nothing: print the report a --json run saved in this file as the README's headline table.", valueName: "file"))
    var markdown: String?
    @Option(help: "The PostgreSQL server of the postgres workload (its user may create databases).") var postgres: String?
    @Option(help: "Events pushed per run of the postgres workload.") var pushEvents = 1_000_000
    @Option(help: "Concurrent pushers in the postgres workload.") var pushers = 8
    @Option(help: "Sessions in the postgres workload's fleet.") var fleetSessions = 1_000
    @Option(help: ArgumentHelp("Only these parts of the postgres workload (push, record, read, fleet; all by default).", valueName: "part"))
    var postgresParts: [String] = []

    /// The postgres workload's parts, in the order they run.
    static let postgresPartNames = ["push", "record", "read", "fleet"]

    func validate() throws {
        guard launchLargeMb >= 0, actions > 0, burst > 0, recordActions > 0, defaultsActions > 0, encryptionActions > 0, replayActions > 0, inspectorEvents > 0, inspectorCalls > 0,
              runs > 0, seeks > 0, batchSize > 0 else {
            throw ValidationError("sizes, --burst, --runs, --seeks and --batch-size must be positive")
        }
        let known: Set = ["dispatch", "record", "defaults", "replay", "seek", "size", "memory", "encryption", "inspector", "postgres", "launch", "recorder-memory", "report", "collect", "json-decoding"]
        if workload.contains("postgres") && postgres == nil { throw ValidationError("the postgres workload needs --postgres URL") }
        guard pushEvents > 0, pushers > 0, fleetSessions > 0 else { throw ValidationError("--push-events, --pushers and --fleet-sessions must be positive") }
        for part in postgresParts where !Self.postgresPartNames.contains(part) {
            throw ValidationError("unknown part '\(part)' of the postgres workload (known: \(Self.postgresPartNames.joined(separator: ", ")))")
        }
        for name in workload where !known.contains(name) { throw ValidationError("unknown workload '\(name)' (known: \(known.sorted().joined(separator: ", ")))") }
    }

    func run() async throws {
        if let markdown {
            let report = try JSONDecoder().decode(BenchReport.self, from: Data(contentsOf: URL(fileURLWithPath: markdown)))
            print(report.markdownTable())
            return
        }
        if let floorServer {
            // A child of the collect workload: the minimal ingestion server, until terminated.
            #if Collector
            try await FloorServer.run(path: floorServer)
            return
            #else
            throw ValidationError("the floor server needs the Collector trait")
            #endif
        }
        #if DEBUG
        FileHandle.standardError.write(Data("rewind-bench: this is a debug build; use `swift run -c release rewind-bench`\n".utf8))
        #endif
        let shop = await Shop.sessionActions(count: 10_000, seed: seed)
        if let memoryProbe {
            // A child of the recorder-memory workload: one measurement, printed alone.
            guard let probe = RecorderMemoryWorkload.Probe(rawValue: memoryProbe) else { throw ValidationError("unknown memory probe '\(memoryProbe)'") }
            print(try RecorderMemoryWorkload.probe(probe, session: shop, actions: defaultsActions))
            return
        }
        var results: [WorkloadResult] = []
        func emit(_ result: WorkloadResult) {
            results.append(result)
            if !json { print(result.table() + "\n") }
        }
        if workload.contains("dispatch") {
            emit(try DispatchWorkload(session: shop, actions: actions, runs: runs, burst: burst).measure())
        }
        if workload.contains("record") || workload.contains("size") {
            let record = try RecordWorkload(session: shop, actions: recordActions, batchSize: batchSize, runs: runs, codecs: codec).measure()
            if workload.contains("record") { emit(record.throughput) }
            if workload.contains("size") { emit(record.size) }
        }
        if workload.contains("defaults") {
            emit(try DefaultsWorkload(session: shop, actions: defaultsActions, runs: runs).measure())
        }
        if workload.contains("report") {
            emit(try ReportWorkload(session: shop, actions: reportActions, runs: runs).measure())
        }
        if workload.contains("launch") {
            emit(try LaunchWorkload(session: shop, samples: launchSamples, largeMegabytes: launchLargeMb).measure())
        }
        if workload.contains("recorder-memory") {
            emit(try RecorderMemoryWorkload(actions: defaultsActions, runs: runs, seed: seed).measure())
        }
        if workload.contains("encryption") {
            emit(try EncryptionWorkload(session: shop, actions: encryptionActions, runs: runs, codecs: codec).measure())
        }
        if !Set(workload).isDisjoint(with: ["replay", "seek", "memory"]) {
            let logs = try await ReplayLogs(actions: replayActions, large: large, seed: seed, codecs: codec)
            defer { logs.remove() }
            if workload.contains("replay") { emit(try ReplayWorkload(logs: logs, runs: runs).measure()) }
            if workload.contains("seek") { emit(try SeekWorkload(logs: logs, seeks: seeks).measure()) }
            if workload.contains("memory") { emit(try MemoryWorkload(logs: logs).measure()) }
        }
        if workload.contains("json-decoding") {
            let todo = await Todo.sessionActions(count: 20_000, seed: seed).map(\.action)
            let shop = await Shop.sessionActions(count: 20_000, seed: seed).map(\.action)
            emit(try JSONDecodingWorkload(todo: todo, shop: shop, runs: runs).measure())
        }
        if workload.contains("inspector") {
            emit(try await InspectorWorkload(events: inspectorEvents, seed: seed, calls: inspectorCalls, logPath: inspectorLog).measure())
        }
        if workload.contains("collect") {
            #if Collector
            emit(try CollectWorkload(reports: collectReports, uploaders: collectUploaders, megabytes: collectMegabytes, runs: runs, seed: seed).measure())
            #else
            throw ValidationError("the collect workload needs the Collector trait (swift build --traits defaults,Collector)")
            #endif
        }
        if workload.contains("postgres"), let postgres {
            #if PostgreSQL
            let workload = PostgresWorkload(
                server: try PostgresLocation(parsing: postgres), events: pushEvents, pushers: pushers, fleetSessions: fleetSessions, runs: runs, seed: seed,
                parts: postgresParts.isEmpty ? Self.postgresPartNames : postgresParts
            )
            do {
                for result in try await workload.measure() { emit(result) }
            } catch let error as PSQLError {
                // postgres-nio keeps the server's message out of the description; this tool talks to its own server.
                throw BenchError("postgres workload: \(String(reflecting: error))")
            }
            #else
            throw ValidationError("the postgres workload needs the PostgreSQL trait")
            #endif
        }
        if json {
            let report = BenchReport(
                machine: ProcessInfo.processInfo.hostName, cores: ProcessInfo.processInfo.activeProcessorCount,
                runs: runs, workloads: results
            )
            print(String(decoding: try JSONEncoder.sortedPretty.encode(report), as: UTF8.self))
        }
    }
}

/// One workload's variants, the first being the baseline.
struct WorkloadResult: Codable {
    struct Variant: Codable {
        var name: String
        var value: Double
        var unit: String
        var ratioToBaseline: Double?
        var runs: [Double]
    }

    var name: String
    var baseline: String
    var variants: [Variant]
    var notes: [String] = []

    func table() -> String {
        var lines = ["\(name) — baseline: \(baseline)"]
        for variant in variants {
            lines.append(
                "  \(variant.name)".padding(toLength: 52, withPad: " ", startingAt: 0)
                    + variant.formattedValue.leftAligned(22)
                    + (variant.ratioToBaseline.map { String(format: "%.2f×", $0) } ?? "").leftAligned(9)
            )
        }
        lines += notes.map { "  \($0)" }
        return lines.joined(separator: "\n")
    }
}

struct BenchReport: Codable {
    var machine: String
    var cores: Int
    var runs: Int
    var workloads: [WorkloadResult]

    /// The report as the README's headline table: one row per variant, its workload named on
    /// the first, with the median of the runs and its ratio to the workload's baseline.
    func markdownTable() -> String {
        var lines = ["| workload | variant | result | ratio to baseline |", "| --- | --- | ---: | ---: |"]
        for workload in workloads {
            for (index, variant) in workload.variants.enumerated() {
                let ratio = variant.ratioToBaseline.map { String(format: "%.2f×", $0) } ?? ""
                lines.append("| \(index == 0 ? workload.name : "") | \(variant.name) | \(variant.formattedValue) | \(ratio) |")
            }
        }
        return lines.joined(separator: "\n")
    }
}

extension WorkloadResult.Variant {
    /// The median as the tables print it: whole and grouped from 100 up (`2,909,823`), two
    /// decimals below (`29.80`), with its unit.
    var formattedValue: String {
        let number = value >= 100 ? Int(value.rounded()).formatted() : String(format: "%.2f", value)
        return "\(number) \(unit)"
    }
}

/// Runs `body` once to warm up, then `runs` times; returns the median and every run's rate.
func medianThroughput(actions: Int, runs: Int, _ body: () throws -> Void) rethrows -> (median: Double, all: [Double]) {
    try body()
    let clock = ContinuousClock()
    var rates: [Double] = []
    for _ in 0..<runs {
        rates.append(Double(actions) / (try clock.measure(body)).seconds)
    }
    return (median(rates), rates)
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
    sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
}

extension Duration {
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

extension String {
    func leftAligned(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}

extension JSONEncoder {
    static var sortedPretty: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return encoder
    }
}

/// Keeps the optimiser from discarding a result.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// A fresh path in the temporary directory, and its removal with the -wal and -shm files.
enum TemporaryLog {
    static func path(_ name: String) -> String {
        NSTemporaryDirectory() + "rewind-bench-\(name)-\(UUID().uuidString).rewind"
    }

    static func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    static func size(_ path: String) -> Int {
        ["", "-wal"].reduce(0) { $0 + ((try? FileManager.default.attributesOfItem(atPath: path + $1)[.size] as? Int) ?? 0) }
    }
}
