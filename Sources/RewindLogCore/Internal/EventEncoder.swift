public import Foundation
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
        // Each column is worked out first and the event made once, at the end: made first and
        // changed after, the event was copied again on each way out (each of its strings and its
        // payload retained and released once more, in the writer thread's profile).
        let decision = decide(action)
        var actionCase = caseName(action)
        var file = source.file
        var function = source.function
        var info = decision.note(source.info, for: action, notes: notes)
        // Text no store keeps whole (see `LogText`): `append` throws the failure, the recorder
        // writes the row changed as said here, payload and all, and reports it. The case path
        // and call site come from the compiler, but an app's `NamedAction` or hand-made
        // `ActionSource` might hold one.
        var failure: EventLogError?
        if !LogText.isStorable(actionCase) || !LogText.isStorable(file) || !LogText.isStorable(function) {
            actionCase = LogText.replacingNUL(actionCase)
            file = LogText.replacingNUL(file)
            function = LogText.replacingNUL(function)
            failure = .encodingFailed(
                path: path, seq: nil, actionCase: actionCase,
                reason: LogText.refusal("its case name or source") + "; the action is logged with U+FFFD in its place"
            )
        }
        if !LogText.isStorable(info) {
            info = nil
            failure = failure ?? .encodingFailed(
                path: path, seq: nil, actionCase: actionCase, reason: LogText.refusal("its note") + "; the action is logged without it"
            )
        }
        var redaction: String?
        var payload: Data?
        switch decision {
        case .keep:
            payload = self.payload(of: action, actionCase: actionCase, redaction: &redaction, failure: &failure)
        case let .scrub(scrubbed):
            redaction = "fields"
            payload = self.payload(of: scrubbed, actionCase: actionCase, redaction: &redaction, failure: &failure)
        case .withhold:
            redaction = "action"
        }
        let key = SourceKey(file: file, function: function, line: source.line, column: source.column, origin: source.origin.rawValue)
        let event = LogWrite.Event(time: time, actionCase: actionCase, payload: payload, source: key, info: info, redaction: redaction)
        return (event, failure)
    }

    /// The payload of `recorded`; when encoding fails, `nil`, with why in `redaction` (without
    /// the value) and the failure in `failure` (over text replaced before: the payload is the
    /// greater loss).
    @inlinable
    package func payload(of recorded: Action, actionCase: String, redaction: inout String?, failure: inout EventLogError?) -> Data? {
        do {
            return try encodePayload(recorded)
        } catch {
            redaction = "unencodable: \(ValueFreeErrorText.describe(error))"
            failure = .encodingFailed(path: path, seq: nil, actionCase: actionCase, reason: "\(error)")
            return nil
        }
    }
}
