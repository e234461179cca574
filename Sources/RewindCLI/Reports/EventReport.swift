import Foundation
import RewindLog

/// One event as scripts see it (`rewind log --json`, and every report that names an event).
struct EventReport: Encodable {
    var seq: Int64
    var session: Int64
    /// ISO-8601 with milliseconds, UTC.
    var time: String
    /// The action case path, e.g. `cart.setQuantity`.
    var action: String
    var file: String
    var function: String
    var line: UInt
    var column: UInt
    /// `call`, `effect`, `feedback`, …
    var origin: String
    /// The dispatch note, when there is one.
    var info: String?
    /// Why the payload was withheld, when it was.
    var redaction: String?
    /// The payload: embedded as JSON when it is JSON text (or was decoded with the app's types),
    /// `"<encrypted: N bytes>"` when it is encrypted and its key was not given, otherwise its
    /// bytes in base64.
    var payload: JSONValue?
    /// The seq of the event that caused this one; absent for a root or when not known.
    var cause: Int64?
    /// The seq of the first event of its chain (its own seq for a root); absent when not known.
    var root: Int64?
    /// The event on one line, for text reports (not encoded).
    var summary: String

    private enum CodingKeys: String, CodingKey {
        case seq, session, time, action, file, function, line, column, origin, info, redaction, payload, cause, root
    }

    /// The report of `event` of `log`, its payload opened when the log has its key.
    init(_ event: LoggedEvent, in log: any LogReader, payload decoded: JSONValue? = nil) throws {
        let event = try Rendering.opened(event, in: log)
        seq = event.seq
        session = event.session
        time = Rendering.timestamp(event.time)
        action = event.actionCase
        file = event.source.file
        function = event.source.function
        line = event.source.line
        column = event.source.column
        origin = event.source.origin.rawValue
        info = event.source.info
        redaction = event.redaction
        (cause, root) = (event.cause, event.root)
        summary = Rendering.line(event)
        payload = decoded ?? event.payload.map { payload in
            event.keyID != nil ? .string(Rendering.sealed(payload)) : JSONValue(json: payload) ?? .string(payload.base64EncodedString())
        }
    }
}
