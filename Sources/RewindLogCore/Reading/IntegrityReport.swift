/// What `EventLog.checkIntegrity()` found.
public struct IntegrityReport: Sendable, Equatable, CustomStringConvertible {
    /// An encrypted payload or snapshot that does not open with its session's key.
    public struct SealedValue: Sendable, Hashable, Codable {
        /// Its session.
        public var session: Int64
        /// Its seq (an event's, or the one a snapshot follows).
        public var seq: Int64
        /// `the payload of cart.add`, `the periodic snapshot`.
        public var what: String
    }

    /// SQLite's `PRAGMA integrity_check` findings; `["ok"]` when the file is sound.
    public var sqlite: [String]
    /// How many events the log holds.
    public var eventCount: Int64
    /// The seqs the log holds, if any.
    public var seqs: ClosedRange<Int64>?
    /// Ranges of missing seqs between the first and the last.
    public var gaps: [ClosedRange<Int64>]
    /// Sessions without an initial snapshot.
    public var sessionsWithoutSnapshot: [Int64]
    /// Sessions whose stored first seq, last seq or event count disagree with their events.
    public var sessionsWithWrongBounds: [Int64] = []
    /// Actions a recorder lost and recorded as such (see ``LogGap``): not damage, since each
    /// ended its session and recording resumed in a new one, but every reader should know.
    public var recordedGaps: [LogGap] = []
    /// Sessions holding events after a recorded gap that ended them: replay would fold across
    /// the loss. Damage.
    public var sessionsContinuingAfterGap: [Int64] = []
    /// Events (the first 100 seqs) whose payload is stored once for every event that repeats it,
    /// in a row the `payloads` table no longer holds. Damage: the payload is lost.
    public var eventsWithMissingPayload: [Int64] = []
    /// Encrypted payloads and snapshots that fail authentication with their session's key
    /// (the first 100): changed or moved after they were written. Damage.
    public var unauthenticated: [SealedValue] = []
    /// Encrypted sessions whose values were not checked, with why: the log was not given their
    /// key, or the key given by their key id is another. Not counted as damage.
    public var encryptedSessionsUnchecked: [Int64: String] = [:]

    /// Whether everything checks out.
    /// A report; the sealed values are checked and set apart (``LogReader/checkSealedValues()``).
    package init(
        sqlite: [String], eventCount: Int64, seqs: ClosedRange<Int64>?, gaps: [ClosedRange<Int64>], sessionsWithoutSnapshot: [Int64],
        sessionsWithWrongBounds: [Int64], recordedGaps: [LogGap], sessionsContinuingAfterGap: [Int64], eventsWithMissingPayload: [Int64]
    ) {
        (self.sqlite, self.eventCount, self.seqs, self.gaps, self.sessionsWithoutSnapshot) = (sqlite, eventCount, seqs, gaps, sessionsWithoutSnapshot)
        (self.sessionsWithWrongBounds, self.recordedGaps) = (sessionsWithWrongBounds, recordedGaps)
        (self.sessionsContinuingAfterGap, self.eventsWithMissingPayload) = (sessionsContinuingAfterGap, eventsWithMissingPayload)
    }

    public var isSound: Bool {
        sqlite == ["ok"] && gaps.isEmpty && sessionsWithoutSnapshot.isEmpty && sessionsWithWrongBounds.isEmpty
            && sessionsContinuingAfterGap.isEmpty && unauthenticated.isEmpty && eventsWithMissingPayload.isEmpty
    }

    /// `ok: 1204 events, seq 1…1204` (with any recorded gaps) or the problems found.
    public var description: String {
        let range = seqs.map { ", seq \($0.lowerBound)…\($0.upperBound)" } ?? ""
        var lost = recordedGaps.isEmpty ? "" : "\n" + recordedGaps.map { "recorded gap: " + $0.summary }.joined(separator: "\n")
        lost += encryptedSessionsUnchecked.keys.sorted().map { "\nencrypted session \($0) not checked: \(encryptedSessionsUnchecked[$0]!)" }.joined()
        guard !isSound else { return "ok: \(eventCount) events\(range)" + lost }
        var problems: [String] = []
        if sqlite != ["ok"] { problems.append("SQLite: " + sqlite.prefix(5).joined(separator: "; ")) }
        if !gaps.isEmpty { problems.append("missing seqs " + gaps.prefix(5).map { "\($0.lowerBound)…\($0.upperBound)" }.joined(separator: ", ")) }
        if !sessionsWithoutSnapshot.isEmpty { problems.append("sessions without initial snapshot: \(sessionsWithoutSnapshot)") }
        if !sessionsWithWrongBounds.isEmpty { problems.append("sessions whose bounds or count disagree with their events: \(sessionsWithWrongBounds)") }
        if !sessionsContinuingAfterGap.isEmpty { problems.append("sessions with events after the gap that ended them: \(sessionsContinuingAfterGap)") }
        if !eventsWithMissingPayload.isEmpty { problems.append("events whose shared payload is missing: \(eventsWithMissingPayload.prefix(5))") }
        if !unauthenticated.isEmpty {
            problems.append("encrypted values that fail authentication: " + unauthenticated.prefix(5).map { "seq \($0.seq) (\($0.what), session \($0.session))" }.joined(separator: ", "))
        }
        return "damaged (\(eventCount) events\(range)): " + problems.joined(separator: "; ") + lost
    }
}
