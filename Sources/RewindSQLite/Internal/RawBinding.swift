import Foundation
import GRDB
import GRDBSQLite
import RewindLogCore

/// Binds Swift values to a raw SQLite statement without copying them into intermediate arrays.
enum RawBinding {
    /// SQLite copies bound text and blobs when told the memory is transient.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// The error of a raw `sqlite3_step` that failed, as GRDB reports its own: SQLite's code
    /// and message, and the statement's SQL (never its bound values).
    /// (`named`: the statement as the error names it, when its whole text would not do.)
    static func error(_ code: Int32, stepping statement: Statement, named: String? = nil, in db: Database) -> DatabaseError {
        DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: named ?? statement.sql)
    }

    static func bind(text: String?, to statement: OpaquePointer, at index: Int32) {
        guard var text else {
            sqlite3_bind_null(statement, index)
            return
        }
        text.withUTF8 { bytes in
            _ = sqlite3_bind_text(statement, index, UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self), Int32(bytes.count), transient)
        }
    }

    static func bind(payload: Data?, isText: Bool, to statement: OpaquePointer, at index: Int32) {
        guard let payload else {
            sqlite3_bind_null(statement, index)
            return
        }
        payload.withUnsafeBytes { bytes in
            let base = bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
            if isText {
                _ = sqlite3_bind_text(statement, index, base.assumingMemoryBound(to: CChar.self), Int32(bytes.count), transient)
            } else {
                _ = sqlite3_bind_blob(statement, index, base, Int32(bytes.count), transient)
            }
        }
    }
}
