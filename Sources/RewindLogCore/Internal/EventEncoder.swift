import Foundation
public import Rewind

/// Encodes actions for one session: applies redaction, names the case, encodes the payload.
///
/// `encode` is `@inlinable`, so that the recorder's batch encoding, made in the app's module
/// (``Recorder``), specialises it for the app's action: unspecialised, each action was copied
/// and looked at through its type's value witnesses and metadata looked up, about a tenth of
/// the writer thread.
@usableFromInline
package struct EventEncoder<Action: Encodable & Sendable> {
    @usableFromInline package var path: String
    @usableFromInline let decide: @Sendable (Action) -> RedactionDecision<Action>
    @usableFromInline let notes: @Sendable (_ note: String, _ action: Action) -> String?
    @usableFromInline let caseName: @Sendable (Action) -> String
    /// Made once per batch: what the codec works out per type, it works out once.
    @usableFromInline let encodePayload: PayloadEncoder<Action>

    @usableFromInline
    package init<State>(codec: any PayloadCodec, redaction: Redaction<State, Action>, path: String) {
        encodePayload = codec.encoder(for: Action.self)
        caseName = ActionCaseName.namer(for: Action.self)
        // Only the action half of the policy: snapshots are scrubbed where they are taken.
        decide = redaction.decide
        notes = redaction.notes
        self.path = path
    }

    /// The row for `action`. When encoding fails the row keeps the case and source, has no
    /// payload and says why in `redaction` (without the value), and the failure is returned
    /// for reporting.
    @inlinable
    package func encode(_ action: Action, source: ActionSource, time: Double) -> (LogWrite.Event, EventLogError?) {
        let key = SourceKey(
            file: source.file, function: source.function, line: source.line, column: source.column, origin: source.origin.rawValue
        )
        let decision = decide(action)
        var event = LogWrite.Event(
            time: time, actionCase: caseName(action), payload: nil, source: key, info: decision.note(source.info, for: action, notes: notes),
            redaction: nil
        )
        // Text no store keeps whole (see `LogText`): `append` throws the failure, the recorder
        // writes the row changed as said here, payload and all, and reports it. The case path
        // and call site come from the compiler, but an app's `NamedAction` or hand-made
        // `ActionSource` might hold one.
        var unstorable: EventLogError?
        if !LogText.isStorable(event.actionCase) || !LogText.isStorable(key.file) || !LogText.isStorable(key.function) {
            event.actionCase = LogText.replacingNUL(event.actionCase)
            event.source.file = LogText.replacingNUL(key.file)
            event.source.function = LogText.replacingNUL(key.function)
            unstorable = .encodingFailed(
                path: path, seq: nil, actionCase: event.actionCase,
                reason: LogText.refusal("its case name or source") + "; the action is logged with U+FFFD in its place"
            )
        }
        if !LogText.isStorable(event.info) {
            event.info = nil
            unstorable = unstorable ?? .encodingFailed(
                path: path, seq: nil, actionCase: event.actionCase, reason: LogText.refusal("its note") + "; the action is logged without it"
            )
        }
        let recorded: Action
        switch decision {
        case .keep:
            recorded = action
        case let .scrub(scrubbed):
            recorded = scrubbed
            event.redaction = "fields"
        case .withhold:
            event.redaction = "action"
            return (event, unstorable)
        }
        do {
            event.payload = try encodePayload(recorded)
            return (event, unstorable)
        } catch {
            event.redaction = "unencodable: \(ValueFreeErrorText.describe(error))"
            return (event, .encodingFailed(path: path, seq: nil, actionCase: event.actionCase, reason: "\(error)"))
        }
    }
}
