/// How a recording session ended, as its log records it (schema 12).
///
/// A session that has no ending is being recorded — or its writer died and no writer has
/// opened a session in the log since: the next one to begin a session (or to trim) finds it
/// unended with its lock free and marks it ``Kind/unclean``.
public struct SessionEnding: Codable, Sendable, Hashable {
    /// Why it ended.
    public enum Kind: String, Codable, Sendable, Hashable, CaseIterable {
        /// Its recorder closed it (``Recorder/close()-3vg18``, or `EventLog.endSession(_:at:)`).
        case closed
        /// A write failed; the loss is a gap, and recording went on in another session.
        case resumed
        /// Its process stopped while recording it — a kill, a power cut, a crash with no mark
        /// (crash marks off, or a crash the hook did not see) — and a later writer noticed.
        case unclean
        /// The app went to the background and its recorder ended the session
        /// (``Recorder/suspend()-54smz``), holding no lock while suspended; recording went on in a
        /// new session when the app came back. Followed by no session, it says the system ended
        /// the app while it was suspended: not a crash. (Schema 13.)
        case suspended
        /// Its process crashed while recording it, and the crash hook marked it (``CrashHook``):
        /// ``SessionEnding/crash`` says with which signal and where. (Schema 14.)
        case crashed
        /// Recorded before schema 12, which did not say.
        case unknown
    }

    /// Why it ended.
    public var kind: Kind
    /// Its last committed seq (its base seq when it has no events).
    public var seq: Int64
    /// When: its close, the crash (``Kind/crashed``), or (``Kind/unclean``) the time of its last
    /// committed event or, without one, of its start; `nil` for ``Kind/unknown``.
    public var time: Double?

    /// What the crash hook marked, for ``Kind/crashed``; `nil` otherwise.
    public var crash: CrashMark?

    /// An ending.
    public init(kind: Kind, seq: Int64, time: Double?, crash: CrashMark? = nil) {
        self.kind = kind
        self.seq = seq
        self.time = time
        self.crash = crash
    }
}
