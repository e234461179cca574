import GRDB

extension EventLogError {
    /// Turns whatever SQLite or GRDB threw into the log's own error, keeping SQLite's code.
    static func wrapping(_ error: any Error, path: String) -> EventLogError {
        if let error = error as? EventLogError { return error }
        guard let error = error as? DatabaseError else {
            return .sqlite(path: path, code: -1, message: "\(error)")
        }
        let message = error.message ?? "\(error.resultCode)"
        switch error.resultCode {
        case .SQLITE_NOTADB: return .notSQLite(path: path, reason: message)
        case .SQLITE_CORRUPT: return .corrupt(path: path, detail: message)
        case .SQLITE_READONLY: return .readOnly(path: path, detail: message)
        case .SQLITE_FULL: return .diskFull(path: path)
        case .SQLITE_CANTOPEN: return .readOnly(path: path, detail: "cannot open the file: \(message)")
        default: return .sqlite(path: path, code: error.extendedResultCode.rawValue, message: message)
        }
    }
}

/// Runs `body`, turning any error into an ``EventLogError`` about `path`.
func mappingErrors<T>(path: String, _ body: () throws -> T) throws(EventLogError) -> T {
    do {
        return try body()
    } catch {
        throw EventLogError.wrapping(error, path: path)
    }
}
