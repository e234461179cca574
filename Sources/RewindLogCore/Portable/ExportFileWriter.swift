package import Foundation
package import Rewind
import RewindCodingCore

/// Writes a portable export (``PortableLog``) line by line: the one writer of the format, for
/// ``LogReader/export(to:filter:)`` and for stores that hand sessions back as a log (a
/// PostgreSQL pull writes an export and imports it, so a pulled log goes through the same
/// checks as any import).
///
/// Lines are written in the order the import needs: the header, symbols, then each session
/// before its snapshots and events, gaps last.
package final class ExportFileWriter {
    private let url: URL
    private let handle: FileHandle
    /// Foundation's bytes with `.sortedKeys`, made faster (`SortedJSONEncoder`).
    private let encoder = SortedJSONEncoder()

    /// Creates (or replaces) the file at `url`, readable and writable by its owner only, like
    /// the log.
    package init(url: URL) throws(EventLogError) {
        guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600]),
              let handle = try? FileHandle(forWritingTo: url) else {
            throw .readOnly(path: url.path, detail: "cannot create the export file")
        }
        self.url = url
        self.handle = handle
    }

    deinit { try? handle.close() }

    /// The first line. `version` is ``PortableLog/version`` when a session written is
    /// encrypted, 2 otherwise (older readers refuse a newer file whole).
    package func header(version: Int, schemaVersion: Int, logID: UUID?) throws(EventLogError) {
        try write(PortableLog.Header(version: version, exportedAt: Date().timeIntervalSince1970, schemaVersion: schemaVersion, logID: logID))
    }

    package func symbol(id: Int64, name: String) throws(EventLogError) {
        try write(PortableLog.SymbolLine(id: id, name: name))
    }

    package func session(_ session: LogSession, shapes: SessionShapes?) throws(EventLogError) {
        try write(PortableLog.SessionLine(session: session, shapes: shapes))
    }

    /// A snapshot; `isText` writes its state as text (a text codec's, unencrypted), otherwise
    /// as base64 — always safe: the import stores it by its session's codec either way.
    package func snapshot(session: Int64, seq: Int64, time: Double, kind: String, state: Data, isText: Bool) throws(EventLogError) {
        let (text, encoding) = PortableLog.encode(state, isText: isText)
        try write(PortableLog.SnapshotLine(session: session, seq: seq, time: time, kind: kind, state: text, encoding: encoding))
    }

    /// An event; its payload written as ``snapshot(session:seq:time:kind:state:isText:)`` writes
    /// a state.
    package func event(
        seq: Int64, session: Int64, time: Double, action: String, payload: Data?, isText: Bool, source: ActionSource, redaction: String?,
        cause: Int64?, root: Int64?
    ) throws(EventLogError) {
        let payload = payload.map { PortableLog.encode($0, isText: isText) }
        try write(PortableLog.EventLine(
            seq: seq, session: session, time: time, action: action, payload: payload?.0, encoding: payload?.1, source: source, redaction: redaction,
            cause: cause, root: root
        ))
    }

    package func gap(_ gap: LogGap) throws(EventLogError) {
        try write(PortableLog.GapLine(gap: gap))
    }

    /// Flushes the file to disk.
    package func finish() throws(EventLogError) {
        do {
            try handle.synchronize()
        } catch {
            throw .readOnly(path: url.path, detail: "cannot write the export file: \(error)")
        }
    }

    private func write<T: Encodable>(_ line: T) throws(EventLogError) {
        do {
            var data = try encoder.encode(line)
            data.append(UInt8(ascii: "\n"))
            try handle.write(contentsOf: data)
        } catch {
            throw .readOnly(path: url.path, detail: "cannot write the export file: \(error)")
        }
    }
}
