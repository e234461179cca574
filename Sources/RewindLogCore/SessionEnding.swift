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
        /// Its process stopped while its store was stuck inside one action longer than the
        /// hang watchdog's limit (``RecorderConfiguration/hangLimit``) — ended by the system's
        /// watchdog or by the user — and the watchdog marked it: ``SessionEnding/hang`` says
        /// which action. (Schema 15.)
        case hung
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
    /// What the hang watchdog marked, for ``Kind/hung``; `nil` otherwise.
    public var hang: HangMark?

    /// An ending.
    public init(kind: Kind, seq: Int64, time: Double?, crash: CrashMark? = nil, hang: HangMark? = nil) {
        self.kind = kind
        self.seq = seq
        self.time = time
        self.crash = crash
        self.hang = hang
    }

    /// The mark's one line (``CrashMark/summary``, ``HangMark/summary``), when it has one.
    public var markSummary: String? {
        crash?.summary ?? hang?.summary
    }

    /// Why a report of the session would be made: its crash or its hang; `nil` for an ending
    /// without a mark.
    public var reportReason: ReportReason? {
        if let crash { return ReportReason(kind: .crash, name: crash.signalName) }
        if let hang { return ReportReason(kind: .hang, name: hang.actionCase) }
        return nil
    }

    /// One line for people: `crashed (SIGSEGV)`, `hung (cart.checkout)`, `closed`.
    public var label: String {
        if let crash { return "\(kind.rawValue) (\(crash.signalName))" }
        if let hang { return "\(kind.rawValue) (\(hang.actionCase))" }
        return kind.rawValue
    }
}

extension SessionEnding {
    /// The mark a store keeps in `sessions.crash`: the crash mark or the hang mark, as JSON.
    package var storedMarkText: String? {
        crash?.storedText ?? hang?.storedText
    }

    /// Sets the mark from a store's `sessions.crash` text, read as the ending's kind says;
    /// `false` when the text is not such a mark. Text beside any other kind is ignored.
    package mutating func setMark(storedText text: String?) -> Bool {
        guard let text else { return true }
        switch kind {
        case .crashed:
            crash = CrashMark(storedText: text)
            return crash != nil
        case .hung:
            hang = HangMark(storedText: text)
            return hang != nil
        default:
            return true
        }
    }
}
