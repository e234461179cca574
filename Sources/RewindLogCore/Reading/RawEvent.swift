/// One event as the replay fast path sees it: its position, case and encoded payload, borrowed
/// from the store's buffer for the duration of the callback
/// (``LogReader/forEachRawEvent(session:from:through:_:)``): the payload must not be kept.
public struct RawEvent {
    /// The event's seq.
    public var seq: Int64
    /// Its case path's id in the reader's table of case paths, `names[id - 1]`.
    public var actionID: Int
    /// The reader's case paths by id (`nil` where an id is unused).
    public var names: [String?]
    /// The encoded action, or `nil` (withheld or unencodable).
    public var payload: UnsafeRawBufferPointer?
    /// Why there is no payload, if there is none.
    public var redaction: String?

    /// An event; `names` is shared by every event of a page, so that the case path is only
    /// looked up when asked for.
    public init(seq: Int64, actionID: Int, names: [String?], payload: UnsafeRawBufferPointer?, redaction: String?) {
        (self.seq, self.actionID, self.names, self.payload, self.redaction) = (seq, actionID, names, payload, redaction)
    }

    /// The case path, looked up only when asked for (in replay, for errors): most events never
    /// need it. An id outside the table only comes from a damaged log.
    public var actionCase: String {
        (actionID >= 1 && actionID <= names.count ? names[actionID - 1] : nil) ?? "action #\(actionID)"
    }
}
