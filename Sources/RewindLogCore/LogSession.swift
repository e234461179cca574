/// One recording session in a log (a store launch), with a summary of its events.
public struct LogSession: Codable, Sendable, Hashable, Identifiable {
    /// The session's number.
    public var id: Int64
    /// Who recorded it.
    public var app: AppIdentity
    /// The codec of its payloads and snapshots.
    public var codec: String
    /// When it began.
    public var startedAt: Double
    /// The last seq in the log when it began; its initial snapshot is stored at this seq.
    public var baseSeq: Int64
    /// Free-form JSON the app attached.
    public var info: String?
    /// How many events it has.
    public var eventCount: Int64
    /// Its first and last seq, if it has events.
    public var seqRange: ClosedRange<Int64>?
    /// How its payloads and snapshots are encrypted; `nil` when they are stored in the clear.
    public var encryption: SessionEncryption?
    /// The `TypeShape.fingerprint` of the action type it was recorded with; `nil` when its
    /// shape was not recorded (an older log, or ``SessionShapes/Source/none``).
    public var actionFingerprint: String?
    /// The `TypeShape.fingerprint` of the state type it was recorded with, or `nil`.
    public var stateFingerprint: String?
    /// How it ended; `nil` while it is recorded (see ``SessionEnding``), and for a store's
    /// sessions, which do not say.
    public var ending: SessionEnding?

    /// The seq replay of the whole session goes to: its last event's, or its base seq when it
    /// has none (an app launched and closed without an action, or emptied by retention).
    public var lastSeq: Int64 { seqRange?.upperBound ?? baseSeq }

    package init(
        id: Int64, app: AppIdentity, codec: String, startedAt: Double, baseSeq: Int64, info: String?, eventCount: Int64,
        seqRange: ClosedRange<Int64>?, encryption: SessionEncryption?, actionFingerprint: String?, stateFingerprint: String?,
        ending: SessionEnding? = nil
    ) {
        self.id = id
        self.app = app
        self.codec = codec
        self.startedAt = startedAt
        self.baseSeq = baseSeq
        self.info = info
        self.eventCount = eventCount
        self.seqRange = seqRange
        self.encryption = encryption
        self.actionFingerprint = actionFingerprint
        self.stateFingerprint = stateFingerprint
        self.ending = ending
    }
}
