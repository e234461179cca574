import Foundation
package import Rewind

/// Encodes actions for one session: applies redaction, names the case, encodes the payload.
package struct EventEncoder<Action: Encodable & Sendable> {
    package var path: String
    private let decide: @Sendable (Action) -> RedactionDecision<Action>
    private let note: @Sendable (String?, Action, RedactionDecision<Action>) -> String?
    private let caseName = ActionCaseName.namer(for: Action.self)
    /// Made once per batch: what the codec works out per type, it works out once.
    private let encodePayload: PayloadEncoder<Action>

    package init<State>(codec: any PayloadCodec, redaction: Redaction<State, Action>, path: String) {
        encodePayload = codec.encoder(for: Action.self)
        // Only the action half of the policy: snapshots are scrubbed where they are taken.
        decide = redaction.decide
        note = { redaction.note($0, for: $1, decision: $2) }
        self.path = path
    }

    /// The row for `action`. When encoding fails the row keeps the case and source, has no
    /// payload and says why in `redaction` (without the value), and the failure is returned
    /// for reporting.
    package func encode(_ action: Action, source: ActionSource, time: Double) -> (LogWrite.Event, EventLogError?) {
        let key = SourceKey(
            file: source.file, function: source.function, line: source.line, column: source.column, origin: source.origin.rawValue
        )
        let decision = decide(action)
        var event = LogWrite.Event(
            time: time, actionCase: caseName(action), payload: nil, source: key, info: note(source.info, action, decision), redaction: nil
        )
        let recorded: Action
        switch decision {
        case .keep:
            recorded = action
        case let .scrub(scrubbed):
            recorded = scrubbed
            event.redaction = "fields"
        case .withhold:
            event.redaction = "action"
            return (event, nil)
        }
        do {
            event.payload = try encodePayload(recorded)
            return (event, nil)
        } catch {
            event.redaction = "unencodable: \(ValueFreeErrorText.describe(error))"
            return (event, .encodingFailed(path: path, seq: nil, actionCase: event.actionCase, reason: "\(error)"))
        }
    }
}
