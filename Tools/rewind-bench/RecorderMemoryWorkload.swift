import Foundation
import Rewind
import RewindExamples
import RewindLog

/// `recorder-memory`: what recording adds to an app's resident memory — the recorder's buffers,
/// its writer thread, the log's connection and caches — while the shop app dispatches at full
/// speed (the buffer's worst case) with the default configuration, into a new file.
///
/// Each run is a process of its own (this binary again, with `--memory-probe`): a process that
/// had run another variant first would reuse the memory that variant freed, and show less. A run
/// reports its peak resident memory (Linux: VmHWM, reset through /proc/self/clear_refs once the
/// actions are prepared) above its resident size at that moment. The baseline is the same store
/// without a recorder: the shop's state grows with every order, and that growth is the app's own.
struct RecorderMemoryWorkload {
    var actions: Int
    var runs: Int
    var seed: UInt64

    /// What one child process measures.
    enum Probe: String, CaseIterable {
        case store = "store"
        case recorder = "recorder"
        case smallBuffer = "recorder-buffer-1024"

        var name: String {
            switch self {
            case .store: "store alone (baseline)"
            case .recorder: "store + recorder, default configuration"
            case .smallBuffer: "store + recorder, bufferCapacity 1,024"
            }
        }
    }

    func measure() throws -> WorkloadResult {
        guard MemoryPeak.isAvailable else {
            return WorkloadResult(name: "recorder memory", baseline: "—", variants: [], notes: ["peak memory is measured on Linux only"])
        }
        var growth: [Probe: [Double]] = [:]
        // Alternated, so that a machine whose state drifts during the run affects every variant alike.
        for _ in 0..<runs {
            for probe in Probe.allCases {
                growth[probe, default: []].append(Double(try Self.spawn(probe, actions: actions, seed: seed)) / 1_048_576)
            }
        }
        let baseline = median(growth[.store] ?? [])
        var variants: [WorkloadResult.Variant] = Probe.allCases.map { probe in
            .init(name: "peak growth: \(probe.name)", value: median(growth[probe] ?? []), unit: "MiB", ratioToBaseline: nil, runs: growth[probe] ?? [])
        }
        for probe in [Probe.recorder, .smallBuffer] {
            variants.append(.init(name: "the recorder's share: \(probe.name)", value: median(growth[probe] ?? []) - baseline, unit: "MiB", ratioToBaseline: nil, runs: []))
        }
        return WorkloadResult(
            name: "recorder memory (\(actions) shop actions at full speed into a new file, JSON, buffered; each run its own process)",
            baseline: "the same store without a recorder",
            variants: variants,
            notes: ["the recorder's share: the variant's median peak growth less the baseline's"]
        )
    }

    /// Runs `probe` in a child process of this binary; returns the bytes it reports.
    static func spawn(_ probe: Probe, actions: Int, seed: UInt64) throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        if !FileManager.default.isExecutableFile(atPath: process.executableURL!.path), let path = Bundle.main.executablePath {
            process.executableURL = URL(fileURLWithPath: path)
        }
        process.arguments = ["--memory-probe", probe.rawValue, "--defaults-actions", "\(actions)", "--seed", "\(seed)"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let bytes = Int(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw BenchError("the memory probe '\(probe.rawValue)' failed (status \(process.terminationStatus)): \(String(decoding: data, as: UTF8.self))")
        }
        return bytes
    }

    /// The child's side: dispatches `actions` of `session` (cycled) and returns its peak
    /// resident growth in bytes, from just before the recorder is made to after it closed.
    static func probe(_ probe: Probe, session: [DispatchedAction<ShopAction>], actions: Int) throws -> Int {
        let path = TemporaryLog.path("memory")
        defer { TemporaryLog.remove(path) }
        MemoryPeak.reset()
        let resident = MemoryPeak.bytes
        var recorder: Recorder<ShopState, ShopAction>?
        if probe != .store {
            var configuration = RecorderConfiguration<ShopState, ShopAction>()
            if probe == .smallBuffer { configuration.bufferCapacity = 1_024 }
            recorder = Recorder(into: .file(path), app: AppIdentity(id: "com.example.shop"), configuration: configuration)
        }
        let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder?.middleware ?? Middleware(willReduce: { _, _, _ in }, didReduce: { _, _, _ in }))
        for index in 0..<actions {
            let dispatched = session[index % session.count]
            store.dispatch(dispatched.action, from: dispatched.source)
        }
        try recorder?.close()
        blackHole(store.state)
        return MemoryPeak.bytes - resident
    }
}
