#if Collector
import Foundation
import RewindLog
import RewindTestProcesses
import Synchronization

/// `collect`: `rewind collect` (the built binary, its defaults but for the rate limits, which a
/// load test from one address and one token must pass) taking sealed reports from concurrent uploaders
/// on loopback, against the floor of any ingestion — the same bodies taken by a minimal
/// Hummingbird handler that does one INSERT each into SQLite (WAL, synchronous = FULL), with no
/// checks (`rewind-bench floor-server`). Reports/s, MB/s, p50/p99 latency, and each server's
/// peak resident memory with its resident memory a quarter of the way through (flat memory:
/// the two close). Rows alternate, floor first, each run on a new store.
struct CollectWorkload {
    var reports: Int
    var uploaders: Int
    var megabytes: Int
    var runs: Int
    var seed: UInt64

    /// One run's figures.
    struct Run {
        var seconds: Double
        var bytes: Int
        var latencies: [Double]
        var peakKilobytes: Int
        var quarterKilobytes: Int
        var failures: Int
    }

    func measure() throws -> WorkloadResult {
        let bodies = try Self.bodies(count: reports, megabytes: megabytes, seed: seed)
        let total = bodies.reduce(0) { $0 + $1.count }
        var floorRuns: [Run] = [], collectRuns: [Run] = []
        for _ in 0..<runs {
            floorRuns.append(try run(server: .floor, bodies: bodies))
            collectRuns.append(try run(server: .collector, bodies: bodies))
        }
        func rate(_ run: Run) -> Double { Double(reports) / run.seconds }
        let floorRate = median(floorRuns.map(rate)), collectRate = median(collectRuns.map(rate))
        func percentile(_ runs: [Run], _ p: Double) -> Double {
            median(runs.map { run in
                let sorted = run.latencies.sorted()
                return sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
            })
        }
        let variants: [WorkloadResult.Variant] = [
            .init(name: "floor: one INSERT per body (reports/s)", value: floorRate, unit: "reports/s", ratioToBaseline: 1, runs: floorRuns.map(rate)),
            .init(name: "rewind collect, SQLite default (reports/s)", value: collectRate, unit: "reports/s", ratioToBaseline: collectRate / floorRate,
                  runs: collectRuns.map(rate)),
        ]
        func describe(_ name: String, _ runs: [Run]) -> String {
            let megabytesPerSecond = median(runs.map { Double($0.bytes) / $0.seconds / 1_048_576 })
            return String(
                format: "%@: %.1f MB/s, latency p50 %.1f ms, p99 %.1f ms, peak RSS %.0f MiB (%.0f MiB a quarter in), %d failed",
                name, megabytesPerSecond, percentile(runs, 0.5) * 1000, percentile(runs, 0.99) * 1000,
                median(runs.map { Double($0.peakKilobytes) / 1024 }), median(runs.map { Double($0.quarterKilobytes) / 1024 }),
                runs.map(\.failures).reduce(0, +)
            )
        }
        return WorkloadResult(
            name: "collect (\(reports) sealed reports, \(total / 1_000_000) MB, sizes log-uniform from 1 KB, \(uploaders) concurrent uploaders on loopback)",
            baseline: "a minimal handler: one INSERT per body",
            variants: variants,
            notes: [describe("floor", floorRuns), describe("collect", collectRuns), "medians of \(runs) runs each, alternated; the client is the same raw HTTP/1.1 keep-alive loop for both"]
        )
    }

    enum Server { case floor, collector }

    private func run(server: Server, bodies: [Data]) throws -> Run {
        let folder = TemporaryLog.path("collect")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let process = Process()
        var token = "floor"
        switch server {
        case .floor:
            process.executableURL = here.appendingPathComponent("rewind-bench")
            process.arguments = ["--floor-server", folder + "/floor.sqlite"]
        case .collector:
            let rewind = here.appendingPathComponent("rewind")
            guard FileManager.default.isExecutableFile(atPath: rewind.path) else {
                throw BenchError("the collect workload runs `rewind collect`, built beside rewind-bench: `swift build -c release --product rewind --traits defaults,Collector`")
            }
            let tokens = folder + "/tokens"
            let made = try runBlocking(rewind.path, ["collect", "token", "--tokens", tokens, "--name", "bench", "--ingest", "com.example.bench"])
            guard made.status == 0 else { throw BenchError("rewind collect token failed: \(made.standardError)") }
            token = made.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
            process.executableURL = rewind
            process.arguments = [
                "collect", "--store", folder + "/reports.sqlite", "--tokens", tokens, "--listen", "127.0.0.1:0",
                "--uploads-per-install-per-hour", "\(reports * 2)", "--requests-per-address-per-minute", "\(reports * 2)",
                "--uploads-per-token-per-minute", "\(reports * 2)",
            ]
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        let line = firstLine(of: output)
        guard let port = String(decoding: line, as: UTF8.self).split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }) else {
            throw BenchError("the \(server) server printed no port: \(String(decoding: line, as: UTF8.self))")
        }
        let pid = process.processIdentifier, bearer = token
        let next = Atomic<Int>(0), failures = Atomic<Int>(0)
        let quarter = Mutex<Int?>(nil)
        let latencies = Mutex<[Double]>([])
        let began = Date()
        let group = DispatchGroup()
        for _ in 0..<uploaders {
            group.enter()
            Thread {
                defer { group.leave() }
                var connection: LoopbackConnection?
                var mine: [Double] = []
                var retry: Int?
                while true {
                    // A failed upload is sent again (on a new connection), as an uploader would.
                    let index = retry ?? next.add(1, ordering: .relaxed).oldValue
                    retry = nil
                    guard index < bodies.count else { break }
                    if index == bodies.count / 4 { quarter.withLock { $0 = Self.resident(pid) } }
                    let body = bodies[index]
                    let head = "POST /v1/reports HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(bearer)\r\nIdempotency-Key: r\(index)\r\n"
                        + "Rewind-Install: install-\(index % 500)\r\nContent-Type: application/octet-stream\r\nContent-Length: \(body.count)\r\n\r\n"
                    let start = Date()
                    if connection == nil { connection = try? LoopbackConnection(port: port) }
                    guard let status = connection?.exchange(head: Array(head.utf8), body: body), status == 201 || status == 200 else {
                        guard failures.add(1, ordering: .relaxed).newValue < 1_000 else { break }
                        connection = nil
                        retry = index
                        continue
                    }
                    mine.append(Date().timeIntervalSince(start))
                }
                latencies.withLock { $0 += mine }
            }.start()
        }
        group.wait()
        let seconds = Date().timeIntervalSince(began)
        return Run(
            seconds: seconds, bytes: bodies.reduce(0) { $0 + $1.count }, latencies: latencies.withLock { $0 },
            peakKilobytes: Self.peakResident(pid) ?? 0, quarterKilobytes: quarter.withLock { $0 } ?? 0, failures: failures.load(ordering: .relaxed)
        )
    }

    /// `count` sealed reports of the app `com.example.bench`, sizes log-uniform between 1 KB and
    /// 500 KB, scaled down together when they would pass `megabytes` in all. Their content is
    /// random bytes: it does not deflate, so a report is as large as drawn.
    static func bodies(count: Int, megabytes: Int, seed: UInt64) throws -> [Data] {
        var random = SplitMix(seed: seed)
        var sizes = (0..<count).map { _ in exp(log(1_000.0) + Double(random.next() % 1_000_000) / 1_000_000 * (log(500_000.0) - log(1_000.0))) }
        // What a report adds to its content (the clear header, the key, the tag) stays inside.
        let budget = Double(megabytes) * 1_000_000 - 500 * Double(count)
        let sum = sizes.reduce(0, +)
        if sum > budget {
            let scale = (budget - 1_000 * Double(count)) / (sum - 1_000 * Double(count))
            sizes = sizes.map { 1_000 + ($0 - 1_000) * scale }
        }
        let key = try ReportKey.generate(id: "bench").publicKey
        return try sizes.enumerated().map { index, size in
            var content = Data(count: Int(size))
            content.withUnsafeMutableBytes { bytes in
                for offset in stride(from: 0, to: bytes.count, by: 8) {
                    var word = random.next()
                    withUnsafeBytes(of: &word) { source in
                        for byte in 0..<min(8, bytes.count - offset) { bytes[offset + byte] = source[byte] }
                    }
                }
            }
            let header = ReportHeader(
                keyID: "bench", app: AppIdentity(id: "com.example.bench", version: "1.\(index % 3)"), reason: ReportReason(kind: .crash, name: "SIGSEGV"),
                triggerAction: "cart.case\(index % 20)", createdAt: 1_800_000_000 + Double(index)
            )
            return try FieldReport.seal(header: header, details: ReportDetails(reason: header.reason, session: 1), export: content, to: key)
        }
    }

    static func resident(_ pid: Int32) -> Int? { status(pid, "VmRSS:") }
    static func peakResident(_ pid: Int32) -> Int? { status(pid, "VmHWM:") }

    private static func status(_ pid: Int32, _ field: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field) }) else { return nil }
        return Int(line.split(separator: " ").dropFirst().first ?? "")
    }
}

/// SplitMix64: a small seeded generator for the bodies.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
#endif
