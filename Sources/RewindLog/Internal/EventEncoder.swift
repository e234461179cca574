import Foundation
import Rewind

/// Encodes actions for one session: applies redaction, names the case, encodes the payload.
struct EventEncoder<Action: Encodable & Sendable> {
    var redaction: Redaction<Action>
    var path: String
    private let caseName = ActionCaseName.namer(for: Action.self)
    /// Made once per batch: what the codec works out per type, it works out once.
    private let encodePayload: PayloadEncoder<Action>

    init(codec: any PayloadCodec, redaction: Redaction<Action>, path: String) {
        encodePayload = codec.encoder(for: Action.self)
        self.redaction = redaction
        self.path = path
    }

    /// The row for `action`. When encoding fails the row keeps the case and source, has no
    /// payload and says why in `redaction`, and the failure is returned for reporting.
    func encode(_ action: Action, source: ActionSource, time: Double) -> (LogWrite.Event, EventLogError?) {
        let key = SourceKey(
            file: source.file, function: source.function, line: source.line, column: source.column, origin: source.origin.rawValue
        )
        var event = LogWrite.Event(time: time, actionCase: caseName(action), payload: nil, source: key, info: source.info, redaction: nil)
        let recorded: Action
        switch redaction.decide(action) {
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
            event.redaction = "unencodable: \(error)"
            return (event, .encodingFailed(path: path, seq: nil, actionCase: event.actionCase, reason: "\(error)"))
        }
    }
}
