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
/// reports two peaks above the process's size once the actions are prepared: its anonymous
/// memory (heap, stacks: sampled every millisecond), which is what an Apple platform counts in
/// an app's footprint and what the ≤ 8 MB goal is about; and all resident memory (Linux: VmHWM,
/// reset through /proc/self/clear_refs), which adds the clean pages of the code recording runs
/// for the first time (SQLite, GRDB, Foundation's), shared and droppable. The baseline is the
/// same store without a recorder: the shop's state grows with every order, and that growth is
/// the app's own.
struct RecorderMemoryWorkload {
    var actions: Int
    var runs: Int
    var seed: UInt64

    /// What one child process measures.
    enum Probe: String, CaseIterable {
        case store = "store"
        case recorder = "recorder"
        case largeBuffer = "recorder-buffer-16384"

        var name: String {
            switch self {
            case .store: "store alone (baseline)"
            case .recorder: "store + recorder, default configuration"
            case .largeBuffer: "store + recorder, bufferCapacity 16,384 (the default until 4,096)"
            }
        }
    }

    func measure() throws -> WorkloadResult {
        guard MemoryPeak.isAvailable else {
            return WorkloadResult(name: "recorder memory", baseline: "—", variants: [], notes: ["peak memory is measured on Linux only"])
        }
        var anonymous: [Probe: [Double]] = [:]
        var resident: [Probe: [Double]] = [:]
        // Alternated, so that a machine whose state drifts during the run affects every variant alike.
        for _ in 0..<runs {
            for probe in Probe.allCases {
                let peaks = try Self.spawn(probe, actions: actions, seed: seed)
                anonymous[probe, default: []].append(Double(peaks.anonymous) / 1_048_576)
                resident[probe, default: []].append(Double(peaks.resident) / 1_048_576)
            }
        }
        var variants: [WorkloadResult.Variant] = []
        for (kind, growth) in [("anonymous", anonymous), ("all resident", resident)] {
            let baseline = median(growth[.store] ?? [])
            for probe in Probe.allCases {
                variants.append(.init(name: "\(kind), peak growth: \(probe.name)", value: median(growth[probe] ?? []), unit: "MiB", ratioToBaseline: nil, runs: growth[probe] ?? []))
            }
            for probe in [Probe.recorder, .largeBuffer] {
                variants.append(.init(name: "\(kind), the recorder's share: \(probe.name)", value: median(growth[probe] ?? []) - baseline, unit: "MiB", ratioToBaseline: nil, runs: []))
            }
        }
        return WorkloadResult(
            name: "recorder memory (\(actions) shop actions at full speed into a new file, JSON, buffered; each run its own process)",
            baseline: "the same store without a recorder",
            variants: variants,
            notes: [
                "the recorder's share: the variant's median peak growth less the baseline's",
                "anonymous: heap and stacks, sampled every millisecond (what an app's footprint counts); all resident: VmHWM, with the code pages recording touches",
            ]
        )
    }

    /// Runs `probe` in a child process of this binary; returns the peaks it reports.
    static func spawn(_ probe: Probe, actions: Int, seed: UInt64) throws -> Peaks {
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
        let fields = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        guard process.terminationStatus == 0, fields.count == 2 else {
            throw BenchError("the memory probe '\(probe.rawValue)' failed (status \(process.terminationStatus)): \(String(decoding: data, as: UTF8.self))")
        }
        return Peaks(anonymous: fields[0], resident: fields[1])
    }

    /// What a probe reports, in bytes above its size when it began.
    struct Peaks: CustomStringConvertible {
        var anonymous: Int
        var resident: Int

        /// As the child prints it for the parent to read.
        var description: String { "\(anonymous) \(resident)" }
    }

    /// The child's side: dispatches `actions` of `session` (cycled) and returns its peak
    /// growth, from just before the recorder is made to after it closed.
    static func probe(_ probe: Probe, session: [DispatchedAction<ShopAction>], actions: Int) throws -> Peaks {
        let path = TemporaryLog.path("memory")
        defer { TemporaryLog.remove(path) }
        MemoryPeak.reset()
        let resident = MemoryPeak.bytes
        let anonymous = MemoryPeak.anonymousBytes
        let (_, anonymousPeak) = try MemoryPeak.anonymousPeak { try record(probe, session: session, actions: actions, path: path) }
        return Peaks(anonymous: anonymousPeak - anonymous, resident: MemoryPeak.bytes - resident)
    }

    private static func record(_ probe: Probe, session: [DispatchedAction<ShopAction>], actions: Int, path: String) throws {
        var recorder: Recorder<ShopState, ShopAction>?
        if probe != .store {
            var configuration = RecorderConfiguration<ShopState, ShopAction>()
            if probe == .largeBuffer { configuration.bufferCapacity = 16_384 }
            recorder = Recorder(into: .file(path), app: AppIdentity(id: "com.example.shop"), configuration: configuration)
        }
        let store = Store(initialState: ShopState(), reducer: Shop.reducer, middleware: recorder?.middleware ?? Middleware(willReduce: { _, _, _ in }, didReduce: { _, _, _ in }))
        for index in 0..<actions {
            let dispatched = session[index % session.count]
            store.dispatch(dispatched.action, from: dispatched.source)
        }
        try recorder?.close()
        blackHole(store.state)
    }
}
