import Foundation
public import RewindLogCore

extension EventLog {
    /// Opens a report (`FieldReport`) as a read-only log: its window's events, snapshots,
    /// gaps and shapes, read by everything that reads a log file — replay, bisect, the
    /// inspector — with errors naming the report.
    ///
    /// The content is opened with the team's private key in `keys` (the one the header names),
    /// inflated within `FieldReport.largestContent` and imported (``importReport(at:keys:to:)``)
    /// into a temporary file that only its owner can read and that is deleted with the log (or,
    /// after a kill, by the next log opened this way).
    ///
    /// - Returns: The log, and the report's sealed details.
    /// - Throws: `EventLogError.unreadableReport` saying what is wrong: the key it needs, a
    ///   failed authentication, or content that does not import.
    public static func openingReport(
        at path: String, keys: LogKeys, codecs: PayloadCodecs = .standard
    ) throws(EventLogError) -> (log: EventLog, details: ReportDetails) {
        let copy = MigratedCopies.newPath()
        MigratedCopies.begin(copy)
        defer { MigratedCopies.end(copy) }
        let details: ReportDetails
        do {
            let imported = try importReport(at: path, keys: keys, to: copy)
            try imported.log.close()
            details = imported.details
        } catch {
            MigratedCopies.remove(copy)
            throw error
        }
        return (try EventLog(readingCopy: copy, named: path, codecs: codecs, keys: keys), details)
    }

    /// Creates a log at `output` from a report: its content opened with the team's private key
    /// in `keys`, then imported with every check ``importLog(from:to:)`` makes.
    ///
    /// - Returns: The new log, open for reading and writing, and the report's sealed details.
    /// - Throws: `EventLogError.unreadableReport` for a report that cannot be opened or whose
    ///   events do not import; nothing is left at `output` then.
    public static func importReport(at path: String, keys: LogKeys, to output: String) throws(EventLogError) -> (log: EventLog, details: ReportDetails) {
        let (details, export) = try FieldReport(contentsOf: path).open(with: keys)
        let exportPath = MigratedCopies.newPath() + ".jsonl"
        MigratedCopies.begin(exportPath)
        defer {
            MigratedCopies.end(exportPath)
            try? FileManager.default.removeItem(atPath: exportPath)
        }
        guard FileManager.default.createFile(atPath: exportPath, contents: export, attributes: [.posixPermissions: 0o600]) else {
            throw .readOnly(path: path, detail: "cannot write the report's events to a temporary file at \(exportPath)")
        }
        do {
            return (try importLog(from: URL(fileURLWithPath: exportPath), to: output), details)
        } catch .readOnly(path: output, let detail) {
            throw .readOnly(path: output, detail: detail)
        } catch {
            let reason = error.description.replacingOccurrences(of: exportPath, with: "its events")
            throw .unreadableReport(path: path, reason: "its events do not import: \(reason)")
        }
    }
}
