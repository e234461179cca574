import Foundation
public import RewindLogCore

extension EventLog {
    /// Opens a report (`FieldReport`) as a read-only log: its window's events, snapshots,
    /// gaps and shapes, read by everything that reads a log file — replay, bisect, the
    /// inspector — with errors naming the report.
    ///
    /// The content is opened with the team's private key in `keys` (the one the header names),
    /// inflated within `FieldReport.largestContent` and imported, with every check an import
    /// makes, into a temporary file that only its owner can read and that is deleted with the
    /// log (or, after a kill, by the next log opened this way).
    ///
    /// - Returns: The log, and the report's sealed details.
    /// - Throws: `EventLogError.unreadableReport` saying what is wrong: the key it needs, a
    ///   failed authentication, or content that does not import.
    public static func openingReport(
        at path: String, keys: LogKeys, codecs: PayloadCodecs = .standard
    ) throws(EventLogError) -> (log: EventLog, details: ReportDetails) {
        let (details, export) = try FieldReport(contentsOf: path).open(with: keys)
        let copy = MigratedCopies.newPath()
        let exportPath = copy + ".jsonl"
        MigratedCopies.begin(copy)
        defer {
            MigratedCopies.end(copy)
            try? FileManager.default.removeItem(atPath: exportPath)
        }
        guard FileManager.default.createFile(atPath: exportPath, contents: export, attributes: [.posixPermissions: 0o600]) else {
            throw .readOnly(path: path, detail: "cannot write the report's events to a temporary file at \(exportPath)")
        }
        do {
            try importLog(from: URL(fileURLWithPath: exportPath), to: copy).close()
        } catch {
            MigratedCopies.remove(copy)
            let reason = error.description.replacingOccurrences(of: exportPath, with: "its events")
            throw .unreadableReport(path: path, reason: "its events do not import: \(reason)")
        }
        return (try EventLog(readingCopy: copy, named: path, codecs: codecs, keys: keys), details)
    }
}
