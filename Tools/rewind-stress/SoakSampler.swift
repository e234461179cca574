#if PostgreSQL
import Foundation
import RewindTestProcesses
import Synchronization

/// Prints, at a steady pace, how a soak is doing — actions dispatched, the longest dispatch
/// since the last line, resident memory of the soak and of `serve`, calls answered — and keeps
/// the memory samples to judge at the end.
final class SoakSampler: Sendable {
    struct Sample {
        var at: Double
        var soak: Int?
        var serve: Int?
    }

    private let dispatcher: SoakDispatcher
    private let inspector: SoakInspector
    private let samples = Mutex<[Sample]>([])
    /// When the current `serve` started, in seconds into the run: its memory is judged from
    /// then on.
    private let serveStarted = Mutex<Double>(0)
    private let began = Mutex<ContinuousClock.Instant>(.now)

    init(dispatcher: SoakDispatcher, inspector: SoakInspector) {
        self.dispatcher = dispatcher
        self.inspector = inspector
    }

    func run(every interval: Duration, from start: ContinuousClock.Instant) async {
        began.withLock { $0 = start }
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            sample()
        }
        sample()
    }

    func markServeStart() {
        let now = (ContinuousClock.now - began.withLock { $0 }).seconds
        serveStarted.withLock { $0 = now }
    }

    private func sample() {
        let at = (ContinuousClock.now - began.withLock { $0 }).seconds
        let sample = Sample(at: at, soak: residentKilobytes(), serve: inspector.pid.flatMap { residentKilobytes($0) })
        samples.withLock { $0.append(sample) }
        let megabytes = { (kilobytes: Int?) in kilobytes.map { String(format: "%7.1f MB", Double($0) / 1_024) } ?? "      -   " }
        report(String(
            format: "  %5.0f s  %12d  %16@  %@  %@  %11d", at, dispatcher.dispatched, milliseconds(dispatcher.takeRecentLongest()), megabytes(sample.soak),
            megabytes(sample.serve), inspector.callCount
        ))
    }

    /// Growth of resident memory beyond `allowedGrowthKB`: the soak's from a quarter of the
    /// run on (the buffers, the connection, the caches are warm by then), and `serve`'s from a
    /// quarter of its own life on.
    func memoryProblems(allowedGrowthKB: Int) -> [String] {
        let samples = samples.withLock { $0 }
        guard let last = samples.last else { return ["no memory sample"] }
        var problems: [String] = []
        func judge(_ name: String, from start: Double, _ value: (Sample) -> Int?) {
            let warm = start + (last.at - start) / 4
            guard let base = samples.first(where: { $0.at >= warm }).flatMap(value), let end = value(last) else { return }
            let growth = end - base
            report(String(format: "memory: %@ %.1f MB at %.0f s, %.1f MB at the end (%+.1f MB)", name, Double(base) / 1_024, warm, Double(end) / 1_024, Double(growth) / 1_024))
            if growth > allowedGrowthKB {
                problems.append(String(format: "%@'s resident memory grew by %.1f MB from %.0f s to the end", name, Double(growth) / 1_024, warm))
            }
        }
        judge("the soak", from: 0, \.soak)
        judge("rewind serve", from: serveStarted.withLock { $0 }, \.serve)
        return problems
    }
}
#endif
