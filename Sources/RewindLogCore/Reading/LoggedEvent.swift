public import Foundation
public import Rewind

/// One event as the log holds it: position, time, case, source and the encoded payload.
///
/// Reading events needs no app types and no key; ``LogReader/decodeAction(of:as:upgrades:)``
/// turns the payload back into the app's action, and ``LogReader/payload(of:)`` gives the
/// encoded action of an encrypted session's event.
public struct LoggedEvent: Sendable, Hashable {
    /// The largest seq a log of any store holds: 2^53, the largest integer every JSON reader
    /// represents exactly. Imports refuse larger ones, so `seq + 1` never overflows and an
    /// export's numbers read back unchanged in any language.
    public static let largestSeq: Int64 = 1 << 53

    /// The global position in the log.
    public var seq: Int64
    /// The session that recorded it.
    public var session: Int64
    /// When it was dispatched, in seconds since 1970.
    public var time: Double
    /// The case path, e.g. `cart.remove`.
    public var actionCase: String
    /// The payload as stored: the encoded action, sealed when ``keyID`` is not `nil`; `nil` when
    /// it was withheld or could not be encoded.
    public var payload: Data?
    /// Where it was dispatched from, with its note.
    public var source: ActionSource
    /// `fields`, `action`, `unencodable: …`, or `nil`.
    public var redaction: String?
    /// The id of the key its session is encrypted with; `nil` when it is stored in the clear.
    public var keyID: String? = nil
    /// The seq of the event that caused this one — the action whose middleware dispatched it,
    /// or whose effect sent it; `nil` for a root, or when the cause is not known (see ``root``).
    public var cause: Int64? = nil
    /// The seq of the first event of this one's chain: the gesture or outside event that
    /// started it, ``seq`` itself for a root; `nil` when not known (an event recorded before
    /// causes were, or whose cause was lost in a gap or recorded in another session).
    public var root: Int64? = nil

    /// Whether nothing caused this event: a gesture, an outside event.
    public var isRoot: Bool { root == seq }

    /// An event as a store read it.
    public init(
        seq: Int64, session: Int64, time: Double, actionCase: String, payload: Data?, source: ActionSource, redaction: String?, keyID: String? = nil,
        cause: Int64? = nil, root: Int64? = nil
    ) {
        (self.seq, self.session, self.time, self.actionCase, self.payload) = (seq, session, time, actionCase, payload)
        (self.source, self.redaction, self.keyID, self.cause, self.root) = (source, redaction, keyID, cause, root)
    }

    /// The seq `back` seqs before `seq`, when `back` is at least `least` and lands on a seq: a
    /// stored distance out of that range (damage, tampering) reads as unknown.
    package static func linked(_ seq: Int64, back: Int64?, atLeast least: Int64) -> Int64? {
        guard let back, back >= least, back < seq else { return nil }
        return seq - back
    }

    /// The payload as text, when the codec writes text (JSON) and it is stored in the clear.
    public var payloadText: String? {
        guard keyID == nil else { return nil }
        return payload.map { String(decoding: $0, as: UTF8.self) }
    }

    /// Decodes the action.
    ///
    /// - Parameters:
    ///   - type: The app's action type.
    ///   - codec: The session's codec.
    ///   - path: The log's path, for the error.
    /// - Returns: The action.
    /// - Throws: ``EventLogError/decodingFailed(path:seq:actionCase:codingPath:reason:)`` naming
    ///   this seq, its case and where in the payload decoding failed;
    ///   ``EventLogError/keyMissing(path:session:keyID:)`` for an encrypted payload (decode it
    ///   with ``LogReader/decodeAction(of:as:upgrades:)``, which has the log's keys).
    public func decodeAction<Action: Decodable>(as type: Action.Type, codec: any PayloadCodec, path: String) throws(EventLogError) -> Action {
        guard let payload else {
            throw Self.missingPayload(path: path, seq: seq, actionCase: actionCase, redaction: redaction)
        }
        if let keyID { throw .keyMissing(path: path, session: session, keyID: keyID) }
        return try DecodingFailure.map(path: path, seq: seq, actionCase: actionCase) {
            try codec.decode(type, from: payload)
        }
    }
}

extension LoggedEvent {
    /// The error for an event without payload, saying why it has none.
    static func missingPayload(path: String, seq: Int64, actionCase: String, redaction: String?) -> EventLogError {
        let why = redaction.map { $0 == "action" ? "its payload was withheld by redaction" : "it was recorded without payload (\($0))" } ?? "it has no payload"
        return .decodingFailed(path: path, seq: seq, actionCase: actionCase, codingPath: "", reason: why)
    }
}
