import Foundation
import RewindLogCore

/// A look at a file's first 100 bytes — the SQLite header — made before SQLite opens it, so a
/// file that is not a Rewind log is refused without being touched.
struct LogFileHeader {
    /// "RWND", stored in the header by `PRAGMA application_id`.
    static let applicationID: Int32 = 0x5257_4E44

    /// The 16 bytes every SQLite 3 database starts with.
    private static let magic = Array("SQLite format 3\u{0}".utf8)

    /// The file's size in bytes.
    var size: Int
    /// The application id in the header (bytes 68–71), as last checkpointed.
    var applicationID: Int32?

    /// Reads and checks the header of the file at `path`.
    ///
    /// - Returns: `nil` for an empty file (a log not written yet).
    /// - Throws: `EventLogError.notSQLite(path:reason:)` or `EventLogError.corrupt(path:detail:)`.
    static func read(path: String) throws(EventLogError) -> LogFileHeader? {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw EventLogError.readOnly(path: path, detail: "the file cannot be read")
        }
        defer { try? handle.close() }
        let bytes = [UInt8]((try? handle.read(upToCount: 100)) ?? Data())
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? bytes.count
        if bytes.isEmpty { return nil }
        guard bytes.count >= magic.count, Array(bytes.prefix(magic.count)) == magic else {
            let printable = String(decoding: bytes.prefix(16), as: UTF8.self)
                .map { $0.isLetter || $0.isNumber || $0 == " " ? String($0) : "." }.joined()
            throw EventLogError.notSQLite(path: path, reason: "it starts with \"\(printable)\"")
        }
        guard bytes.count == 100 else {
            throw EventLogError.corrupt(path: path, detail: "truncated: \(size) bytes, shorter than a SQLite header")
        }
        let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        let effectivePageSize = pageSize == 1 ? 65_536 : pageSize
        if effectivePageSize >= 512 && size % effectivePageSize != 0 {
            throw EventLogError.corrupt(path: path, detail: "truncated: \(size) bytes is not a whole number of \(effectivePageSize)-byte pages")
        }
        let id = bytes[68..<72].reduce(Int32(0)) { $0 << 8 | Int32($1) }
        return LogFileHeader(size: size, applicationID: id)
    }
}
