import ArgumentParser
import Foundation
import Rewind
import RewindExamples

/// `rewind-bench`: measures Rewind's workloads side by side with their baselines in one run.
///
/// Build it in release mode: `swift run -c release rewind-bench`.
@main
struct RewindBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rewind-bench",
        abstract: "Measure Rewind's workloads against their baselines (run with -c release).",
        discussion: """
            Each workload runs --runs times after a warm-up; the table shows medians and the \
            ratio of each variant to its baseline, all from the same run.
            """
    )

    @Option(help: "Actions per run of the dispatch workload.")
    var actions = 1_000_000

    @Option(help: "Actions per run of the record workload.")
    var recordActions = 200_000

    @Option(help: "Actions in the replay workload's log.")
    var replayActions = 1_000_000

    @Option(help: "Random seeks in the replay workload.")
    var seeks = 200

    @Option(help: "Workloads to run: dispatch, record, replay (default: all).")
    var workload: [String] = ["dispatch", "record", "replay"]

    @Option(help: "Timed runs per variant (the median is reported).")
    var runs = 7

    @Option(help: "Seed of the generated shop session.")
    var seed: UInt64 = 7

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    func validate() throws {
        guard actions > 0, runs > 0 else { throw ValidationError("--actions and --runs must be positive") }
    }

    func run() async throws {
        #if DEBUG
        FileHandle.standardError.write(Data("rewind-bench: this is a debug build; use `swift run -c release rewind-bench`\n".utf8))
        #endif
        let session = await Shop.sessionActions(count: 10_000, seed: seed)
        var results: [WorkloadResult] = []
        if workload.contains("dispatch") {
            results.append(DispatchWorkload(session: session.map(\.action), actions: actions, runs: runs).measure())
        }
        if workload.contains("record") {
            for interval in [0, 1_000] {
                results.append(try RecordWorkload(session: session, actions: recordActions, runs: runs, snapshotInterval: interval).measure())
            }
        }
        if workload.contains("replay") {
            results.append(try await ReplayWorkload(actions: replayActions, runs: runs, seeks: seeks).measure())
        }
        if json {
            let data = try JSONEncoder.sortedPretty.encode(BenchReport(actions: actions, runs: runs, workloads: results))
            print(String(decoding: data, as: UTF8.self))
        } else {
            print(results.map { $0.table() }.joined(separator: "\n\n"))
        }
    }
}

/// One workload's variants, the first being the baseline.
struct WorkloadResult: Codable {
    struct Variant: Codable {
        var name: String
        var actionsPerSecond: Double
        var ratioToBaseline: Double
        var runsActionsPerSecond: [Double]
    }

    var name: String
    var baseline: String
    var variants: [Variant]
    var notes: [String] = []

    func table() -> String {
        var lines = ["\(name) (baseline: \(baseline); median of \(variants.first?.runsActionsPerSecond.count ?? 0) runs)"]
        lines.append("  variant".padding(toLength: 42, withPad: " ", startingAt: 0) + "actions/s".leftAligned(14) + "ratio".leftAligned(8))
        for variant in variants {
            lines.append(
                "  \(variant.name)".padding(toLength: 42, withPad: " ", startingAt: 0)
                    + Int(variant.actionsPerSecond).formatted().leftAligned(14)
                    + String(format: "%.2f×", variant.ratioToBaseline).leftAligned(8)
            )
        }
        lines += notes.map { "  \($0)" }
        return lines.joined(separator: "\n")
    }
}

struct BenchReport: Codable {
    var actions: Int
    var runs: Int
    var workloads: [WorkloadResult]
}

/// Runs `body` once to warm up, then `runs` times, and returns the median actions per second.
func medianThroughput(actions: Int, runs: Int, _ body: () -> Void) -> (median: Double, all: [Double]) {
    body()
    let clock = ContinuousClock()
    var rates: [Double] = []
    for _ in 0..<runs {
        rates.append(Double(actions) / clock.measure(body).seconds)
    }
    return (median(rates), rates)
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
