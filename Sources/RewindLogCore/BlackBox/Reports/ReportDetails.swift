/// What a report says about itself, sealed with its events: the first line of its content,
/// before the portable export of its window (``FieldReport``).
public struct ReportDetails: Codable, Sendable, Hashable {
    /// Always `report`: the line's type, as the export's lines have theirs.
    public var type = "report"
    /// Why it was made.
    public var reason: ReportReason
    /// What the user (or the developer) wrote, if anything.
    public var note: String?
    /// The session it is of, by its id in the log it was made from.
    public var session: Int64
    /// The seq of the action that triggered it: the last committed one for a crash.
    public var triggerSeq: Int64?
    /// The events kept: the first and last seq of its window (none when the session had none).
    public var firstSeq: Int64?
    public var lastSeq: Int64?
    /// How many events before the trigger were asked for (`nil`: the whole session), and how
    /// many the size bound let it keep.
    public var requestedEvents: Int?
    public var keptEvents: Int
    /// Whether the report is larger than its bound even with its window at its smallest (the
    /// base snapshot and the trigger alone): kept and flagged, not dropped.
    public var exceedsBound: Bool
    /// How the session ended, when it had (a crash's mark among it).
    public var ending: SessionEnding?
    /// What the app chose to say about the device (OS, model): nothing by default.
    public var device: [String: String]
    /// The secret-looking strings the scan found in the window (``SecretScan``), masked; at
    /// most ``SecretScan/largestReported``.
    public var secrets: [SecretFinding] = []

    public init(
        reason: ReportReason, note: String? = nil, session: Int64, triggerSeq: Int64? = nil, firstSeq: Int64? = nil, lastSeq: Int64? = nil,
        requestedEvents: Int? = nil, keptEvents: Int = 0, exceedsBound: Bool = false, ending: SessionEnding? = nil, device: [String: String] = [:]
    ) {
        self.reason = reason
        self.note = note
        self.session = session
        self.triggerSeq = triggerSeq
        self.firstSeq = firstSeq
        self.lastSeq = lastSeq
        self.requestedEvents = requestedEvents
        self.keptEvents = keptEvents
        self.exceedsBound = exceedsBound
        self.ending = ending
        self.device = device
    }
}
