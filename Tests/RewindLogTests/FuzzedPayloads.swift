import Foundation
import Rewind

/// Payloads for fuzzing a decoder: random bytes, then valid payloads with one byte changed,
/// cut short, a byte inserted, or junk appended. Seeded, so a failure reproduces.
enum FuzzedPayloads {
    static func make(from valid: [Data], random count: Int = 3_000, mutated: Int = 6_000, seed: UInt64) -> [Data] {
        var random = SeededRandom(seed: seed)
        var payloads: [Data] = []
        for _ in 0..<count {
            payloads.append(Data((0..<random.int(in: 0...64)).map { _ in UInt8(random.int(below: 256)) }))
        }
        for _ in 0..<mutated {
            var bytes = [UInt8](random.element(of: valid)!)
            switch random.int(below: 4) {
            case 0 where !bytes.isEmpty: bytes[random.int(below: bytes.count)] = UInt8(random.int(below: 256))
            case 1 where !bytes.isEmpty: bytes.removeLast(random.int(in: 1...bytes.count))
            case 2: bytes.insert(UInt8(random.int(below: 256)), at: random.int(below: bytes.count + 1))
            default: bytes += (0..<random.int(in: 1...8)).map { _ in UInt8(random.int(below: 256)) }
            }
            payloads.append(Data(bytes))
        }
        return payloads
    }

    /// Runs every decode on every payload; returns how many decoded and how many threw.
    static func attempt(_ payloads: [Data], with decodes: [(Data) throws -> Void]) -> (decoded: Int, failed: Int) {
        var decoded = 0, failed = 0
        for payload in payloads {
            for decode in decodes {
                do { try decode(payload); decoded += 1 } catch { failed += 1 }
            }
        }
        return (decoded, failed)
    }
}
