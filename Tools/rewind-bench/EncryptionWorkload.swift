import Foundation
import Rewind
import RewindExamples
import RewindLog
import RewindReplay

/// `encryption`: what encrypting a log costs. The same shop actions recorded with the default
/// configuration, in the clear (the baseline) and with a key, runs alternating, per codec:
/// actions committed per second, the writer thread's CPU and the bytes per event; then each log
/// replayed from its start to the final state (every payload opened, every snapshot too).
struct EncryptionWorkload {
    var session: [DispatchedAction<ShopAction>]
    var actions: Int
    var runs: Int
    var codecs: [String]

    static let key = try! LogKey(id: "bench", bytes: Data(repeating: 0x42, count: 32))

    func measure() throws -> WorkloadResult {
        var variants: [WorkloadResult.Variant] = []
        for codec in [JSONPayloadCodec() as any PayloadCodec, BinaryPayloadCodec()] where codecs.contains(codec.name) {
            var record: [Bool: [Double]] = [:], cpu: [Bool: [Double]] = [:], bytes: [Bool: [Double]] = [:], replay: [Bool: [Double]] = [:]
            for run in 0...runs {
                for encrypted in [false, true] {
                    let path = TemporaryLog.path("encryption")
                    defer { TemporaryLog.remove(path) }
                    let recorded = try self.record(codec: codec, encrypted: encrypted, at: path)
                    let replayed = try self.replay(path, encrypted: encrypted)
                    guard run > 0 else { continue }
                    record[encrypted, default: []].append(recorded.rate)
                    cpu[encrypted, default: []].append(recorded.writerCPUPerThousand)
                    bytes[encrypted, default: []].append(recorded.bytesPerEvent)
                    replay[encrypted, default: []].append(replayed)
                }
            }
            func row(_ name: String, _ values: [Bool: [Double]], unit: String, higherIsBetter: Bool = true) {
                let clear = median(values[false] ?? []), sealed = median(values[true] ?? [])
                variants.append(.init(name: "\(codec.name), \(name): clear (baseline)", value: clear, unit: unit, ratioToBaseline: 1, runs: values[false] ?? []))
                variants.append(.init(name: "\(codec.name), \(name): encrypted", value: sealed, unit: unit,
                                      ratioToBaseline: higherIsBetter ? sealed / clear : clear / sealed, runs: values[true] ?? []))
            }
            row("record", record, unit: "actions/s")
            // Inverted like the record workload's CPU rows, so that higher is better.
            row("writer CPU per 1,000", cpu, unit: "ms", higherIsBetter: false)
            row("size", bytes, unit: "bytes/event", higherIsBetter: false)
            row("replay to the final state", replay, unit: "actions/s")
        }
        return WorkloadResult(
            name: "encryption (\(actions) shop actions, default configuration but every event kept, AES-256-GCM; record committed, then replayed from the start)",
            baseline: "the same recording in the clear, runs alternating (each codec's ratios are to its own; size and CPU ratios are clear ÷ encrypted)",
            variants: variants
        )
    }

    /// Records every action with the default configuration but the codec and retention
    /// (everything kept: the replay that follows counts every action, and the default
    /// retention would trim 100,000 shop actions' JSON), committed.
    private func record(codec: any PayloadCodec, encrypted: Bool, at path: String) throws -> (rate: Double, writerCPUPerThousand: Double, bytesPerEvent: Double) {
        var configuration = RecorderConfiguration<ShopState, ShopAction>()
        configuration.codec = codec
        configuration.retention = nil
        return try RecordWorkload.recordCommitted(
            session, actions: actions, into: path, configuration: configuration, keys: LogKeys(current: encrypted ? Self.key : nil)
        )
    }

    /// Replays the log's session from its start to the final state; returns actions per second.
    private func replay(_ path: String, encrypted: Bool) throws -> Double {
        let log = try EventLog(path: path, mode: .readOnly, keys: LogKeys(others: encrypted ? [Self.key] : []))
        defer { try? log.close() }
        let replayer = Replayer(log: log, reducer: Shop.reducer)
        let elapsed = try ContinuousClock().measure {
            blackHole(try replayer.finalState(session: 1, fromStart: true))
        }
        return Double(actions) / elapsed.seconds
    }
}
