import ArgumentParser
import RewindLog

/// `rewind check PATH`: is the log sound?
struct CheckCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a log: SQLite's integrity check, gapless seqs, a snapshot per session.",
        discussion: "With --key-file, every payload and snapshot of the encrypted sessions it has keys for must authenticate. Exits 1 when the log is damaged."
    )

    @OptionGroup var options: LogOptions

    func report() throws -> Report {
        Report(try options.open().checkIntegrity())
    }
}

extension CheckCommand {
    /// What ``EventLog/checkIntegrity()`` found. `gaps` lists missing seq ranges as
    /// `[first, last]` pairs.
    struct Report: CommandReport {
        var sound: Bool
        var answersNo: Bool { !sound }
        /// SQLite's `PRAGMA integrity_check` lines (`["ok"]` when sound).
        var sqlite: [String]
        var events: Int64
        var firstSeq: Int64?
        var lastSeq: Int64?
        var gaps: [[Int64]]
        var sessionsWithoutSnapshot: [Int64]
        var sessionsWithWrongBounds: [Int64]
        /// Actions a recorder lost and recorded as lost (not damage).
        var recordedGaps: [LogGap]
        /// Sessions with events after the gap that ended them (damage).
        var sessionsContinuingAfterGap: [Int64]
        /// Events whose shared payload row is missing (damage; the first 100).
        var eventsWithMissingPayload: [Int64]
        /// Encrypted payloads and snapshots that fail authentication (damage; the first 100).
        var unauthenticated: [IntegrityReport.SealedValue]
        /// Encrypted sessions not checked, by id (as a string), with why (their key was not given).
        var encryptedSessionsUnchecked: [String: String]
        private var integrity: IntegrityReport

        private enum CodingKeys: String, CodingKey {
            case sound, sqlite, events, firstSeq, lastSeq, gaps, sessionsWithoutSnapshot, sessionsWithWrongBounds
            case recordedGaps, sessionsContinuingAfterGap, eventsWithMissingPayload, unauthenticated, encryptedSessionsUnchecked
        }

        init(_ integrity: IntegrityReport) {
            self.integrity = integrity
            (sound, sqlite, events) = (integrity.isSound, integrity.sqlite, integrity.eventCount)
            (firstSeq, lastSeq) = (integrity.seqs?.lowerBound, integrity.seqs?.upperBound)
            gaps = integrity.gaps.map { [$0.lowerBound, $0.upperBound] }
            (sessionsWithoutSnapshot, sessionsWithWrongBounds) = (integrity.sessionsWithoutSnapshot, integrity.sessionsWithWrongBounds)
            (recordedGaps, sessionsContinuingAfterGap) = (integrity.recordedGaps, integrity.sessionsContinuingAfterGap)
            eventsWithMissingPayload = integrity.eventsWithMissingPayload
            unauthenticated = integrity.unauthenticated
            encryptedSessionsUnchecked = Dictionary(uniqueKeysWithValues: integrity.encryptedSessionsUnchecked.map { ("\($0.key)", $0.value) })
        }

        var text: String { integrity.description }
    }
}
