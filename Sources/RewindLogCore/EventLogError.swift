import Foundation

/// Everything that can go wrong with a Rewind log, saying what, where and why.
///
/// Each case names the file and, where it applies, the seq, the action case or the session.
/// SQLite's result code is kept where SQLite reported the problem. Payloads (possibly private
/// user data) never appear in ``description``.
public enum EventLogError: Error, Sendable, Equatable, CustomStringConvertible {
    /// There is no file at the path and the log was opened without creating one.
    case fileNotFound(path: String)
    /// The file is not a SQLite database at all.
    case notSQLite(path: String, reason: String)
    /// The file given to import is not a Rewind export (JSON Lines with a `rewind-export`
    /// header).
    case notAnExport(path: String, reason: String)
    /// A report (``FieldReport``) that cannot be opened: damaged, tampered with, of a newer
    /// format, or sealed to a key the reader was not given. `reason` says which.
    case unreadableReport(path: String, reason: String)
    /// The file is a SQLite database, but not a Rewind log.
    case notARewindLog(path: String, applicationID: Int32)
    /// The log was written by a newer Rewind, whose schema this one does not know.
    case newerSchema(path: String, found: Int, supported: Int)
    /// The file is damaged: truncated, or its pages do not check out.
    case corrupt(path: String, detail: String)
    /// The log cannot be written: the file or its folder is read-only, or it was opened
    /// read-only.
    case readOnly(path: String, detail: String)
    /// The log file was deleted or replaced while the log was open for writing.
    case fileVanished(path: String)
    /// The disk is full.
    case diskFull(path: String)
    /// SQLite reported another error: its extended result code, its message, and the
    /// statement it was executing (without bound values, which may hold user data).
    case sqlite(path: String, code: Int32, message: String, sql: String?)
    /// Something other than SQLite failed while the log was being read or written.
    case failed(path: String, reason: String)
    /// An action or state could not be encoded.
    case encodingFailed(path: String, seq: Int64?, actionCase: String?, reason: String)
    /// A recorded action or state no longer decodes with today's types.
    case decodingFailed(path: String, seq: Int64, actionCase: String?, codingPath: String, reason: String)
    /// A session recorded with a codec this build does not have.
    case unknownCodec(path: String, session: Int64, codec: String)
    /// A session number that is not in the log.
    case sessionNotFound(path: String, session: Int64)
    /// A seq that is not in the log.
    case seqNotFound(path: String, seq: Int64, available: ClosedRange<Int64>?)
    /// A session that has no snapshot to start replaying from.
    case noSnapshot(path: String, session: Int64, seq: Int64)
    /// The log was used after `close()`.
    case closed(path: String)
    /// A replay that leaves actions out was given none to leave out.
    case nothingToSkip(path: String)
    /// A seq given for one session's replay belongs to another session, or to none.
    case seqOutsideSession(path: String, seq: Int64, session: Int64, sessionSeqs: ClosedRange<Int64>?)
    /// A session is encrypted with a key the log was not given (see ``LogKeys``).
    case keyMissing(path: String, session: Int64, keyID: String)
    /// The key given by the id a session names is not the key it was encrypted with.
    case wrongKey(path: String, session: Int64, keyID: String)
    /// An encrypted payload or snapshot does not open with its session's key, which is the
    /// right one: it was changed or moved after it was written.
    case authenticationFailed(path: String, session: Int64, seq: Int64, what: String)
    /// The store committed nothing for longer than the recorder's `stallLimit` while its
    /// buffer was full: the actions dispatched from then until the store answered again were
    /// not recorded (they are counted in a gap) so that the app did not wait on the store.
    case stalled(path: String, seconds: Double)
    /// Long work reading the log (a replay) stopped because whoever asked for it no longer
    /// waits for the answer (`ReplayOptions.isCancelled`).
    case cancelled(path: String)

    /// The file the error is about.
    public var path: String {
        switch self {
        case let .fileNotFound(path), let .notSQLite(path, _), let .notAnExport(path, _), let .unreadableReport(path, _), let .notARewindLog(path, _),
            let .newerSchema(path, _, _), let .corrupt(path, _), let .readOnly(path, _),
            let .fileVanished(path), let .diskFull(path), let .sqlite(path, _, _, _), let .failed(path, _),
            let .encodingFailed(path, _, _, _), let .decodingFailed(path, _, _, _, _),
            let .unknownCodec(path, _, _), let .sessionNotFound(path, _), let .seqNotFound(path, _, _),
            let .noSnapshot(path, _, _), let .closed(path), let .nothingToSkip(path), let .seqOutsideSession(path, _, _, _),
            let .keyMissing(path, _, _), let .wrongKey(path, _, _), let .authenticationFailed(path, _, _, _),
            let .stalled(path, _), let .cancelled(path):
            return path
        }
    }

    /// Whether SQLite refused because another connection held the file's lock past the busy
    /// timeout (`SQLITE_BUSY` and its extended codes): nothing was written, and the same write
    /// may succeed a moment later.
    package var isBusy: Bool {
        guard case let .sqlite(_, code, _, _) = self else { return false }
        return code & 0xFF == 5
    }

    /// One sentence for a person: what went wrong, where, and what to do when there is
    /// something to do.
    public var description: String {
        switch self {
        case let .fileNotFound(path):
            return "\(path): no such file"
        case let .notSQLite(path, reason):
            return "\(path): not a Rewind log (not a SQLite database: \(reason))"
        case let .notAnExport(path, reason):
            return "\(path): not a Rewind export (\(reason)); export a log with `rewind export`"
        case let .unreadableReport(path, reason):
            return "\(path): cannot open this report (\(reason))"
        case let .notARewindLog(path, applicationID):
            return "\(path): not a Rewind log (a SQLite database with application_id \(String(format: "0x%08X", applicationID)), expected 0x52574E44)"
        case let .newerSchema(path, found, supported):
            return "\(path): written by a newer Rewind (log schema version \(found); this build reads up to \(supported)); the file was not changed — update Rewind to open it"
        case let .corrupt(path, detail):
            return "\(path): the log is damaged (\(detail))"
        case let .readOnly(path, detail):
            return "\(path): cannot write to the log (\(detail))"
        case let .fileVanished(path):
            return "\(path): the log file was deleted or replaced while it was being written"
        case let .diskFull(path):
            return "\(path): the disk is full"
        case let .sqlite(path, code, message, sql):
            return "\(path): SQLite error \(code): \(message)" + (sql.map { " - while executing `\($0)`" } ?? "")
        case let .failed(path, reason):
            return "\(path): \(reason)"
        case let .encodingFailed(path, seq, actionCase, reason):
            return "\(path): could not encode \(Self.locate(seq: seq, actionCase: actionCase)): \(reason)"
        case let .decodingFailed(path, seq, actionCase, codingPath, reason):
            let at = codingPath.isEmpty ? "" : " at \(codingPath)"
            return "\(path): \(Self.locate(seq: seq, actionCase: actionCase)) no longer decodes\(at): \(reason)"
        case let .unknownCodec(path, session, codec):
            return "\(path): session \(session) was recorded with codec '\(codec)', which this build does not have"
        case let .sessionNotFound(path, session):
            return "\(path): there is no session \(session)"
        case let .seqNotFound(path, seq, available):
            let range = available.map { "the log holds seq \($0.lowerBound)…\($0.upperBound)" } ?? "the log holds no events"
            return "\(path): there is no event with seq \(seq) (\(range))"
        case let .noSnapshot(path, session, seq):
            return "\(path): session \(session) has no snapshot at or before seq \(seq) to replay from"
        case let .closed(path):
            return "\(path): the log was used after it was closed"
        case let .nothingToSkip(path):
            return "\(path): no actions were given to leave out"
        case let .seqOutsideSession(path, seq, session, seqs):
            let range = seqs.map { "its events are seq \($0.lowerBound)…\($0.upperBound)" } ?? "it has no events"
            return "\(path): seq \(seq) is not in session \(session) (\(range)); one replay stays within one session"
        case let .keyMissing(path, session, keyID):
            return "\(path): session \(session) is encrypted with key '\(keyID)', which was not given; open the log with that key (LogKeys, or rewind --key-file) to read its payloads and snapshots"
        case let .wrongKey(path, session, keyID):
            return "\(path): the key given as '\(keyID)' is not the key session \(session) was encrypted with (it does not match the session's key check)"
        case let .authenticationFailed(path, session, seq, what):
            return "\(path): seq \(seq): \(what) of session \(session) fails authentication with the session's key: the encrypted bytes were changed or moved after they were written"
        case let .stalled(path, seconds):
            return "\(path): the store committed nothing for \(String(format: "%.1f", seconds)) s with the recorder's buffer full (its stallLimit); actions dispatched until it answered again were not recorded, so that dispatch would not wait on it"
        case let .cancelled(path):
            return "\(path): stopped reading: the work was cancelled (nobody waits for its answer any more)"
        }
    }

    private static func locate(seq: Int64?, actionCase: String?) -> String {
        switch (seq, actionCase) {
        case let (seq?, name?): return "seq \(seq) (\(name))"
        case let (seq?, nil): return "seq \(seq)"
        case let (nil, name?): return "an action (\(name))"
        case (nil, nil): return "a value"
        }
    }
}
