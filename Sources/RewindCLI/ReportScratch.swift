import Foundation
import RewindLog
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A folder of this run's own, owner-only, where reports fetched from a collector's store are
/// written (sealed, as stored) to be opened as report files: by the inspector's Reports view
/// and by fleet questions over a store. Deleted with the value, or when the tool is
/// interrupted (``Interruption/removeOnExit(_:)``).
final class ReportScratch: Sendable {
    let folder: String

    init() throws {
        var template = Array((NSTemporaryDirectory() as NSString).appendingPathComponent("rewind-reports-XXXXXX").utf8CString)
        // mkdtemp makes it 0700.
        guard let made = mkdtemp(&template) else { throw InputError("cannot make a folder for the reports opened: \(String(cString: strerror(errno)))") }
        folder = String(cString: made)
        Interruption.removeOnExit(folder)
    }

    /// Writes report `id`'s bytes as a report file, readable by its owner only.
    func write(_ bytes: Data, id: Int64) throws -> String {
        let file = (folder as NSString).appendingPathComponent("report-\(id).\(ReportOutbox.fileExtension)")
        guard FileManager.default.createFile(atPath: file, contents: bytes, attributes: [.posixPermissions: 0o600]) else {
            throw InputError("cannot write the report to \(file)")
        }
        return file
    }

    deinit {
        try? FileManager.default.removeItem(atPath: folder)
    }
}
