import CustomDump
import Foundation
import RewindLog
import RewindReplay

/// A registered app opened on a log, with its types: the replayer the typed halves of
/// ``ReplayingCommand``s use, and what they share (conditions, dumps).
struct TypedAppReplay<State: Codable & Sendable & Equatable, Action: Codable & Sendable>: AppReplay {
    let replayer: Replayer<State, Action>
    let invariants: [Invariant<State>]
    let formats: [ValueFormat]

    func run<Command: ReplayingCommand>(_ command: Command) throws -> Command.Output {
        try command.run(with: self)
    }

    func schemaDrift(sessions: [Int64]) throws -> [SchemaDrift] {
        try sessions.flatMap { session throws(EventLogError) in try replayer.schemaDrift(session: session) }
    }

    /// Runs `search` with `condition` as a predicate on the state. A `--where` expression that
    /// cannot be evaluated on some state stops the search at once (the predicate answers `true`)
    /// and its failure is thrown once `search` returns.
    func searching<Result>(
        for condition: Condition,
        _ search: (_ matches: (State) -> Bool) throws -> Result
    ) throws -> (Result, Condition.Labels) {
        let (predicate, labels) = try resolve(condition)
        var failure: StatePredicate.Failure?
        let result = try search { state in
            do throws(StatePredicate.Failure) { return try predicate(state) } catch {
                failure = error
                return true
            }
        }
        if let failure { throw failure }
        return (result, labels)
    }

    /// The condition as a predicate on the state, and its labels.
    private func resolve(_ condition: Condition) throws -> ((State) throws(StatePredicate.Failure) -> Bool, Condition.Labels) {
        switch condition {
        case let .breaks(name):
            guard let invariant = invariants.first(where: { $0.name == name }) else {
                let known = invariants.map(\.name)
                throw StatePredicate.Failure(description: "no invariant named '\(name)'" + (known.isEmpty ? " (this app has none)" : " (known: \(known.joined(separator: ", ")))"))
            }
            return ({ !invariant.holds($0) }, Condition.Labels(found: "invariant '\(name)' (\(invariant.description)) breaks", never: "invariant '\(name)' never breaks"))
        case let .matches(predicate):
            let encoder = JSONValue.readableEncoder()
            return ({ state throws(StatePredicate.Failure) in
                let object: Any
                do { object = try JSONSerialization.jsonObject(with: encoder.encode(state)) } catch {
                    throw StatePredicate.Failure(description: "the state cannot be encoded as JSON: \(error)")
                }
                return try predicate.evaluate(on: object)
            }, Condition.Labels(found: "'\(predicate)' holds", never: "'\(predicate)' never holds"))
        }
    }

    /// A value as swift-custom-dump shows it.
    func dump(_ value: some Any) -> String {
        var text = ""
        customDump(value, to: &text)
        return text
    }
}
