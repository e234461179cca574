import Foundation
import GRDB
import RewindLogCore

extension EventLogError {
    /// Turns whatever SQLite or GRDB threw into the log's own error, keeping SQLite's code,
    /// message and statement (as GRDB's `DatabaseError` does; never its bound values).
    static func wrapping(_ error: any Error, path: String) -> EventLogError {
        if let error = error as? EventLogError { return error }
        if let damage = error as? RowDamage { return .corrupt(path: path, detail: damage.description) }
        guard let error = error as? DatabaseError else {
            return .failed(path: path, reason: "\(error)")
        }
        let message = error.message ?? "\(error.resultCode)"
        switch error.resultCode {
        case .SQLITE_NOTADB: return .notSQLite(path: path, reason: message)
        case .SQLITE_CORRUPT: return .corrupt(path: path, detail: message)
        case .SQLITE_READONLY: return .readOnly(path: path, detail: message)
        case .SQLITE_FULL: return .diskFull(path: path)
        case .SQLITE_CANTOPEN: return .readOnly(path: path, detail: "cannot open the file: \(message)")
        default:
            // One line: a statement written over several lines reads as one in a message.
            let sql = error.sql.map { $0.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ") }
            return .sqlite(path: path, code: error.extendedResultCode.rawValue, message: message, sql: sql)
        }
    }
}

/// Runs `body`, turning any error into an `EventLogError` about `path`.
func mappingErrors<T>(path: String, _ body: () throws -> T) throws(EventLogError) -> T {
    do {
        return try body()
    } catch {
        throw EventLogError.wrapping(error, path: path)
    }
}
