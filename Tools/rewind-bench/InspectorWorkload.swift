import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Rewind
import RewindExamples
import RewindLog
import RewindReplay

/// `inspector`: how fast `rewind serve` answers the page on a long log. The todo app recorded
/// with the default configuration (10,000,000 events unless told; the todo app, because its
/// state stays the size of a real app's, where the shop's order history grows without bound),
/// served by the built `rewind` binary beside this one, asked over HTTP as the page asks: the
/// timeline's first page, a page at a random seq, a page read backward, a page filtered by
/// case, and the state at a random step. Each call's median and p99, side by side with the same
/// read done in this process through the library (no HTTP, no log opened per call): the
/// difference is what serving costs.
struct InspectorWorkload {
    var events: Int
    var seed: UInt64
    var calls: Int
    /// A log to reuse (kept), instead of recording a new one (removed at the end).
    var logPath: String?

    func measure() async throws -> WorkloadResult {
        let path = logPath ?? TemporaryLog.path("inspector")
        if !FileManager.default.fileExists(atPath: path) {
            FileHandle.standardError.write(Data("inspector: recording \(events) todo actions into \(path)…\n".utf8))
            try await Self.record(events: events, seed: seed, into: path)
        }
        defer { if logPath == nil { TemporaryLog.remove(path) } }
        let log = try EventLog(path: path, mode: .readOnly)
        defer { try? log.close() }
        let last = try log.seqRange()?.upperBound ?? 0
        let replayer = Replayer(log: log, reducer: Todo.reducer)
        let server = try ServedLog(path: path)
        defer { server.stop() }

        var random = SeededRandom(seed: 11)
        let seqs = (0..<calls).map { _ in Int64(1 + random.int(below: Int(last))) }
        var variants: [WorkloadResult.Variant] = []
        func row(_ name: String, api: (Int64) async throws -> Void, direct: (Int64) throws -> Void) async throws {
            // One warm-up call each, then the timed ones at the same seqs.
            try await api(seqs[0])
            try direct(seqs[0])
            var served: [Double] = [], local: [Double] = []
            let clock = ContinuousClock()
            for seq in seqs {
                let start = clock.now
                try await api(seq)
                served.append((clock.now - start).seconds * 1_000)
                local.append(try clock.measure { try direct(seq) }.seconds * 1_000)
            }
            served.sort()
            local.sort()
            for (variant, times) in [("in process", local), ("served", served)] {
                let ratio = variant.hasPrefix("in process") ? 1 : percentile(local, 0.5) / max(percentile(times, 0.5), 1e-9)
                variants.append(.init(name: "\(name), \(variant): median", value: percentile(times, 0.5), unit: "ms", ratioToBaseline: ratio, runs: []))
                variants.append(.init(name: "\(name), \(variant): p99", value: percentile(times, 0.99), unit: "ms", ratioToBaseline: nil, runs: []))
            }
        }
        func page(_ filter: EventFilter, after seq: Int64) throws {
            var filter = filter
            filter.seqs = (seq + 1)...Int64.max
            filter.limit = 101
            var cursor = log.events(filter, pageSize: 101)
            blackHole(try cursor.collect())
        }
        try await row("first page", api: { _ in try await server.get("events?after=0&limit=100") }, direct: { _ in try page(EventFilter(), after: 0) })
        try await row("random page", api: { try await server.get("events?after=\($0)&limit=100") }, direct: { try page(EventFilter(), after: $0) })
        try await row("backward page", api: { try await server.get("events?before=\($0)&limit=100") }, direct: {
            blackHole(try log.events(EventFilter(), before: $0, count: 101))
        })
        try await row("filtered page (list.*)", api: { try await server.get("events?case=list.*&after=\($0)&limit=100") }, direct: {
            try page(EventFilter(actionCase: "list.*"), after: $0)
        })
        try await row("state at a random step", api: { try await server.get("state?at=\($0)") }, direct: { blackHole(try replayer.state(at: $0)) })
        return WorkloadResult(
            name: "inspector (\(last) todo events, default configuration, every event kept; \(calls) calls each at random seqs)",
            baseline: "in process: the same read through the library; served: `rewind serve` asked over HTTP (adds HTTP, opening the log per call, JSON); pages of 100 events",
            variants: variants,
            notes: [String(format: "log: %.0f MB", Double(TemporaryLog.size(path)) / 1_048_576)]
        )
    }

    /// Records the todo app's generated session, cycled to `events` actions, with the default
    /// configuration but retention: every event kept.
    private static func record(events: Int, seed: UInt64, into path: String) async throws {
        let session = await Todo.sessionActions(count: 100_000, seed: seed)
        let log = try EventLog(path: path)
        // Every event kept (the default retention would trim the log to about 4 MB of payloads).
        var configuration = RecorderConfiguration<TodoState, TodoAction>()
        configuration.retention = nil
        let recorder = Recorder<TodoState, TodoAction>(log: log, app: AppIdentity(id: "com.example.todo"), configuration: configuration)
        let store = Store(initialState: TodoState(), reducer: Todo.reducer, middleware: recorder.middleware)
        for index in 0..<events {
            let dispatched = session[index % session.count]
            store.dispatch(dispatched.action, from: dispatched.source)
        }
        try await recorder.close()
        try ReplayLogs.requireWhole(log, holding: events)
        try log.close()
    }
}

/// The built `rewind serve` on a log, asked over HTTP.
private final class ServedLog: Sendable {
    private let process: Process
    private let base: URL
    private let token: String

    init(path: String) throws {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("rewind")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw BenchError("the inspector workload serves its log with `rewind`, built beside rewind-bench: run `swift build -c release --product rewind` first")
        }
        process = Process()
        process.executableURL = binary
        process.arguments = ["serve", path, "--json"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let line = output.fileHandleForReading.availableData
        guard let object = try? JSONSerialization.jsonObject(with: line) as? [String: String], let url = object["url"].flatMap(URL.init(string:)),
              let token = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first(where: { $0.name == "token" })?.value
        else { throw BenchError("rewind serve did not print its URL: \(String(decoding: line, as: UTF8.self))") }
        (base, self.token) = (url, token)
    }

    func get(_ call: String) async throws {
        var request = URLRequest(url: URL(string: "/api/" + call, relativeTo: base)!)
        request.setValue(token, forHTTPHeaderField: "X-Rewind-Token")
        let (data, response) = try await URLSession.shared.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw BenchError("\(call): \(String(decoding: data, as: UTF8.self))")
        }
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
