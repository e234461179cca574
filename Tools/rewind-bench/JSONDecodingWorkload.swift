import Foundation
import RewindCoding
import RewindExamples

/// `json-decoding`: where the default codec's replay time goes, by decoding the same payloads
/// (the JSON codec's bytes of a todo and a shop session) several ways, in memory:
///
/// - Foundation's `JSONDecoder`, as the JSON codec decoded before its generated readers, and as
///   it still decodes types without `@BinaryCodable` (the baseline);
/// - the JSON codec as it decodes these `@BinaryCodable` actions: their generated JSON readers
///   over the codec's tape (``JSONReader``);
/// - `JSONSerialization`: parsing into Foundation objects, no `Codable`;
/// - the spike's tape parser alone (``JSONTape``): one pass over the bytes, nothing built but
///   the tape — the parsing a fast decoder cannot avoid;
/// - the tape under lazy `Codable` containers (``TapeDecoder``): the usual fast design, so its
///   gap to the tape alone is the containers' cost;
/// - the binary codec on the same actions: the target is JSON within 3× of it.
///
/// Every payload is decoded by the spike, the codec and Foundation first, and must give equal
/// values.
struct JSONDecodingWorkload {
    let todo: [TodoAction]
    let shop: [ShopAction]
    let runs: Int

    struct Different: Error, CustomStringConvertible {
        var description: String
    }

    func measure() throws -> WorkloadResult {
        var variants: [WorkloadResult.Variant] = []
        var notes: [String] = []
        try measure("todo", todo, into: &variants, notes: &notes)
        try measure("shop", shop, into: &variants, notes: &notes)
        return WorkloadResult(
            name: "json-decoding (\(todo.count) todo and \(shop.count) shop actions' JSON payloads, in memory)",
            baseline: "Foundation's JSONDecoder on the same payloads (each app's ratios are to its own)",
            variants: variants,
            notes: notes
        )
    }

    private func measure<Action: Codable & Equatable>(_ app: String, _ actions: [Action], into variants: inout [WorkloadResult.Variant], notes: inout [String]) throws {
        let json = JSONPayloadCodec(), binary = BinaryPayloadCodec(), foundationDecoder = JSONDecoder()
        let payloads = try actions.map { try json.encode($0) }
        let binaries = try actions.map { try binary.encode($0) }
        for (index, payload) in payloads.enumerated() {
            let spike = try TapeDecoder.decode(Action.self, from: payload)
            guard spike == actions[index], try json.decode(Action.self, from: payload) == spike,
                  try foundationDecoder.decode(Action.self, from: payload) == spike else {
                throw Different(description: "\(app) payload \(index) decodes differently: \(String(decoding: payload, as: UTF8.self))")
            }
        }
        let bytes = payloads.reduce(0) { $0 + $1.count }
        let foundation = try medianThroughput(actions: actions.count, runs: runs) {
            for payload in payloads { blackHole(try foundationDecoder.decode(Action.self, from: payload)) }
        }
        let codecDecoder = json.decoder(for: Action.self)
        let codec = try medianThroughput(actions: actions.count, runs: runs) {
            for payload in payloads { blackHole(try payload.withUnsafeBytes { try codecDecoder($0) }) }
        }
        let serialization = try medianThroughput(actions: actions.count, runs: runs) {
            for payload in payloads { blackHole(try JSONSerialization.jsonObject(with: payload)) }
        }
        let tape = try medianThroughput(actions: actions.count, runs: runs) {
            for payload in payloads { try payload.withUnsafeBytes { blackHole(try JSONTape($0).tokens.count) } }
        }
        let lazy = try medianThroughput(actions: actions.count, runs: runs) {
            for payload in payloads { blackHole(try TapeDecoder.decode(Action.self, from: payload)) }
        }
        let decoder = binary.decoder(for: Action.self)
        let compact = try medianThroughput(actions: actions.count, runs: runs) {
            for payload in binaries { blackHole(try payload.withUnsafeBytes { try decoder($0) }) }
        }
        let rows: [(String, (median: Double, all: [Double]))] = [
            ("Foundation JSONDecoder (baseline)", foundation),
            ("the JSON codec: generated readers (the default)", codec),
            ("JSONSerialization: parse into Foundation objects, no Codable", serialization),
            ("spike: tape parse alone", tape),
            ("spike: tape + lazy Codable containers", lazy),
            ("binary codec, the same actions (the target's reference)", compact),
        ]
        for (name, figure) in rows {
            variants.append(.init(name: "\(app): \(name)", value: figure.median, unit: "actions/s", ratioToBaseline: figure.median / foundation.median, runs: figure.all))
        }
        let perAction = { (rate: Double) in 1e9 / rate }
        let foundationTime = perAction(foundation.median), tapeTime = perAction(tape.median), lazyTime = perAction(lazy.median)
        let codecTime = perAction(codec.median), binaryTime = perAction(compact.median)
        notes.append(String(
            format: "%@: %.0f bytes a payload. Foundation takes %.0f ns an action; the tape parse alone %.0f ns (%.0f%% of it); tape + containers %.0f ns (%.1f× Foundation's speed; containers %.0f ns); the codec's generated readers %.0f ns (%.1f× Foundation's speed); binary %.0f ns (JSON by the codec is %.1f× binary's time)",
            app, Double(bytes) / Double(actions.count), foundationTime, tapeTime, 100 * tapeTime / foundationTime, lazyTime,
            foundationTime / lazyTime, lazyTime - tapeTime, codecTime, foundationTime / codecTime, binaryTime, codecTime / binaryTime
        ))
    }
}
