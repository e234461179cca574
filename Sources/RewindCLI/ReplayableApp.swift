import CustomDump
import Foundation
public import Rewind
public import RewindLog
import RewindReplay

/// An app the `rewind` tool can replay: its types, its reducer and the invariants its state
/// must keep. Register apps with ``RewindTool/main(apps:extraCommands:)``.
///
/// ```swift
/// ReplayableApp(
///     id: "com.example.shop",
///     reducer: Shop.reducer,
///     invariants: [Invariant(name: "non-negative-total", description: "the cart total is never negative") { $0.cart.total >= 0 }]
/// )
/// ```
public struct ReplayableApp: Sendable {
    /// The app id its logs record (``AppIdentity/id``).
    public let id: String
    /// The invariants, by name, with their descriptions.
    public let invariants: [(name: String, description: String)]
    let open: @Sendable (EventLog, ReplayOptions) -> any AppReplay

    /// Registers an app.
    ///
    /// - Parameters:
    ///   - id: The app id its logs record.
    ///   - reducer: The app's reducer; its types are the app's state and action.
    ///   - current: The app's current identity (schema versions), for upgrading older logs.
    ///   - upcaster: Upgrades payloads recorded at older schema versions.
    ///   - invariants: Rules the state must keep, for `bisect --invariant`.
    public init<State: Codable & Sendable & Equatable, Action: Codable & Sendable>(
        id: String,
        reducer: Reducer<State, Action>,
        current: AppIdentity? = nil,
        upcaster: Upcaster = .none,
        invariants: [Invariant<State>] = []
    ) {
        self.id = id
        self.invariants = invariants.map { ($0.name, $0.description) }
        self.open = { log, options in
            var options = options
            if let current { options.upgrades = SchemaUpgrades(app: current, upcaster: upcaster) }
            return TypedReplay(replayer: Replayer(log: log, reducer: reducer, options: options), invariants: invariants)
        }
    }
}

/// What the CLI asks of an app, without knowing its types.
protocol AppReplay: Sendable {
    func state(at seq: Int64) throws -> Report
    func diff(at seq: Int64) throws -> Report
    func diff(from: Int64, to: Int64) throws -> Report
    func bisect(session: Int64?, skippingAhead: Bool, condition: Condition) throws -> (Report, found: Bool)
    func verify(session: Int64?) throws -> (Report, agrees: Bool)
    func whatIf(skipping: Set<Int64>, through: Int64?) throws -> Report
    func shrink(session: Int64?, condition: Condition, output: String) throws -> (Report, found: Bool)
    /// The action of event `seq`, decoded with the app's types: as swift-custom-dump shows it,
    /// and as JSON.
    func action(at seq: Int64) throws -> (dump: String, json: Any)
}

/// What `bisect` looks for.
enum Condition: Sendable {
    /// The first state that breaks the named invariant.
    case breaks(invariant: String)
    /// The first state whose JSON satisfies the expression.
    case matches(StatePredicate)
}

/// A command's answer: text for people, a JSON object for scripts.
struct Report {
    var text: String
    var json: [String: Any]
}

struct TypedReplay<State: Codable & Sendable & Equatable, Action: Codable & Sendable>: AppReplay {
    let replayer: Replayer<State, Action>
    let invariants: [Invariant<State>]

    func state(at seq: Int64) throws -> Report {
        let (state, stats) = try replayer.stateAndStats(at: seq)
        let session = try replayer.log.session(containing: seq)
        let skipped = stats.skipped.isEmpty ? "" : "\n(skipped \(stats.skipped.count) events that no longer decode: "
            + stats.skipped.prefix(5).map { "seq \($0.seq) \($0.actionCase)" }.joined(separator: ", ") + (stats.skipped.count > 5 ? ", …)" : ")")
        return Report(
            text: "state after seq \(seq) (session \(session.id), replayed \(stats.folded) events from the snapshot at seq \(stats.startedFromSnapshot ?? 0)):\n"
                + dump(state) + skipped,
            json: ["seq": seq, "session": session.id, "state": try jsonObject(state), "eventsFolded": stats.folded,
                   "fromSnapshot": stats.startedFromSnapshot ?? 0,
                   "skipped": stats.skipped.map { ["seq": $0.seq, "action": $0.actionCase, "reason": $0.reason] as [String: Any] }]
        )
    }

    func diff(at seq: Int64) throws -> Report {
        let change = try replayer.diff(at: seq)
        return Report(
            text: describe(change.event) + "\n" + (change.diff ?? "(the action changed nothing)"),
            json: ["seq": seq, "event": Rendering.json(change.event), "diff": change.diff ?? NSNull()]
        )
    }

    func diff(from: Int64, to: Int64) throws -> Report {
        let diff = try replayer.diff(from: from, to: to)
        return Report(
            text: "state after seq \(from) (−) → after seq \(to) (+):\n" + (diff ?? "(no difference)"),
            json: ["from": from, "to": to, "diff": diff ?? NSNull()]
        )
    }

    func bisect(session: Int64?, skippingAhead: Bool, condition: Condition) throws -> (Report, found: Bool) {
        let (predicate, label, never) = try resolve(condition, session: session)
        var failure: StatePredicate.Failure?
        let outcome = try replayer.bisect(session: session, skippingAhead: skippingAhead) { state in
            do throws(StatePredicate.Failure) { return try predicate(state) } catch {
                // Stop at once; the failure is thrown below.
                failure = error
                return true
            }
        }
        if let failure { throw failure }
        switch outcome {
        case let .found(change, stats):
            return (Report(
                text: """
                    first action after which \(label): seq \(change.event.seq)
                    \(describe(change.event))
                    \(change.diff ?? "(no change)")
                    (checked \(stats.snapshotsChecked) snapshots, folded \(stats.eventsFolded) events)
                    """,
                json: ["found": true, "condition": label, "seq": change.event.seq, "event": Rendering.json(change.event),
                       "diff": change.diff ?? NSNull(), "eventsFolded": stats.eventsFolded, "snapshotsChecked": stats.snapshotsChecked]
            ), true)
        case let .holdsAtStart(session, seq, _):
            return (Report(
                text: "\(label) already in session \(session)'s initial state (seq \(seq)), before any action",
                json: ["found": true, "condition": label, "atStart": true, "session": session, "seq": seq]
            ), true)
        case let .notFound(stats):
            return (Report(
                text: "\(never) (folded \(stats.eventsFolded) events)",
                json: ["found": false, "condition": label, "eventsFolded": stats.eventsFolded]
            ), false)
        }
    }

    func verify(session: Int64?) throws -> (Report, agrees: Bool) {
        let report = try replayer.verify(session: session)
        guard let divergence = report.divergence else {
            return (Report(
                text: "ok: replaying \(report.eventsFolded) events of \(report.sessions) session\(report.sessions == 1 ? "" : "s") reproduces all \(report.snapshotsCompared) recorded snapshots",
                json: ["agrees": true, "sessions": report.sessions, "eventsFolded": report.eventsFolded, "snapshotsCompared": report.snapshotsCompared]
            ), true)
        }
        return (Report(
            text: """
                diverged: the recorded state after seq \(divergence.snapshotSeq) differs from the replayed one \
                (they agreed at seq \(divergence.lastAgreeingSeq), so an action in \(divergence.lastAgreeingSeq + 1)…\(divergence.snapshotSeq) \
                now reduces differently)
                last action: \(describe(divergence.event))
                recorded (−) vs replayed (+):
                \(divergence.diff)
                """,
            json: ["agrees": false, "session": divergence.session, "seq": divergence.snapshotSeq,
                   "lastAgreeingSeq": divergence.lastAgreeingSeq, "event": Rendering.json(divergence.event), "diff": divergence.diff]
        ), false)
    }

    func whatIf(skipping: Set<Int64>, through: Int64?) throws -> Report {
        let result = try replayer.whatIf(skipping: skipping, through: through)
        let skipped = result.skipped.map { "  - " + describe($0) }.joined(separator: "\n")
        return Report(
            text: """
                without these actions:
                \(skipped)
                the state after seq \(result.through) would differ (− as recorded, + without them):
                \(result.diff ?? "(no difference)")
                """,
            json: ["through": result.through, "skipped": result.skipped.map(Rendering.json), "diff": result.diff ?? NSNull(),
                   "state": try jsonObject(result.alternative)]
        )
    }

    func action(at seq: Int64) throws -> (dump: String, json: Any) {
        let event = try replayer.log.event(at: seq)
        let action = try replayer.decode(event)
        return (dump(action), try JSONSerialization.jsonObject(with: JSONEncoder().encode(action), options: .fragmentsAllowed))
    }

    func shrink(session: Int64?, condition: Condition, output: String) throws -> (Report, found: Bool) {
        let (predicate, label, never) = try resolve(condition, session: session)
        var failure: StatePredicate.Failure?
        let clock = ContinuousClock()
        var result: ShrinkResult<State, Action>?
        let elapsed = try clock.measure {
            result = try replayer.shrink(session: session) { state in
                do throws(StatePredicate.Failure) { return try predicate(state) } catch {
                    failure = error
                    return true
                }
            }
        }
        if let failure { throw failure }
        guard let result else {
            return (Report(text: never, json: ["found": false, "condition": label]), false)
        }
        try result.write(to: output).close()
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let kept = result.steps.map { "  " + Rendering.line($0.event) }.joined(separator: "\n")
        return (Report(
            text: """
                shrunk \(result.originalCount) actions to \(result.steps.count) after which \(label) \
                (replayed \(result.replays) candidates in \(String(format: "%.2f", seconds)) s):
                \(kept)
                wrote \(output): replay it with `rewind bisect \(output) …`, or as a test with RewindTesting
                """,
            json: ["found": true, "condition": label, "originalCount": result.originalCount, "keptCount": result.steps.count,
                   "replays": result.replays, "seconds": seconds, "output": output, "kept": result.steps.map { Rendering.json($0.event) }]
        ), true)
    }

    /// The condition as a predicate on the state, how to name it, and how to say it never happens.
    private func resolve(_ condition: Condition, session: Int64?) throws -> ((State) throws(StatePredicate.Failure) -> Bool, String, String) {
        switch condition {
        case let .breaks(name):
            guard let invariant = invariants.first(where: { $0.name == name }) else {
                let known = invariants.map(\.name)
                throw StatePredicate.Failure(description: "no invariant named '\(name)'" + (known.isEmpty ? " (this app has none)" : " (known: \(known.joined(separator: ", ")))"))
            }
            return ({ !invariant.holds($0) }, "invariant '\(name)' (\(invariant.description)) breaks", "invariant '\(name)' never breaks")
        case let .matches(predicate):
            let encoder = JSONEncoder()
            return ({ state throws(StatePredicate.Failure) in
                let object: Any
                do { object = try JSONSerialization.jsonObject(with: encoder.encode(state)) } catch {
                    throw StatePredicate.Failure(description: "the state cannot be encoded as JSON: \(error)")
                }
                return try predicate.evaluate(on: object)
            }, "'\(predicate)' holds", "'\(predicate)' never holds")
        }
    }

    private func dump(_ value: some Any) -> String {
        var text = ""
        customDump(value, to: &text)
        return text
    }

    private func jsonObject(_ state: State) throws -> Any {
        try JSONSerialization.jsonObject(with: JSONEncoder().encode(state))
    }

    private func describe(_ event: LoggedEvent) -> String {
        Rendering.line(event)
    }
}
