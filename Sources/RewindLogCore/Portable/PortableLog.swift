public import Foundation
package import Rewind

/// The portable form of a log: JSON Lines, one object per line, that a user can attach to a
/// bug report and a developer can import back into a log and replay.
///
/// ```
/// {"type":"header","format":"rewind-export","version":1,…}
/// {"type":"symbol","id":1,"name":"cart"}                 (binary payloads' coding keys)
/// {"type":"session","session":{"id":1,"app":{…},"codec":"json",…}}
/// {"type":"snapshot","session":1,"seq":0,"kind":"initial","time":…,"state":"{…}"}
/// {"type":"event","seq":1,"session":1,"time":…,"action":"cart.add","payload":"{…}","source":{…}}
/// {"type":"gap","gap":{"session":1,"afterSeq":40,"lost":3,…}}   (version 2: actions a recorder lost)
/// ```
///
/// Payloads and states are kept byte for byte: as text for text codecs (JSON), as base64
/// (`"encoding":"base64"`) otherwise. An encrypted session's stay encrypted: export needs no
/// key, and the imported log needs the same keys as the exported one.
public enum PortableLog {
    /// The version of the export format: 2 added `gap` lines, 3 encrypted sessions (a session
    /// line's `encryption`), 4 sessions that ended suspended (a session line's `ending` of
    /// kind `suspended`). Older readers refuse a newer file whole, by its version, with a
    /// clear error, so an export is written at the lowest version that holds what it holds: 4
    /// only when a session in it ended suspended, 3 when one is encrypted. Every earlier
    /// version imports.
    public static let version = 4

    package struct Header: Codable {
        package var type = "header"
        package var format = "rewind-export"
        package var version: Int
        package var exportedAt: Double
        package var schemaVersion: Int
        /// The exported log's identity (schema 9), which its import keeps; older readers
        /// ignore it.
        package var logID: UUID?
    }

    package struct SymbolLine: Codable {
        package var type = "symbol"
        package var id: Int64
        package var name: String
    }

    package struct SessionLine: Codable {
        package var type = "session"
        package var session: LogSession
        /// The shapes of the session's types (schema 8), when recorded. Older readers ignore
        /// the key; import recomputes the fingerprints from the shapes rather than trusting
        /// the session's.
        package var shapes: SessionShapes?
    }

    package struct SnapshotLine: Codable {
        package var type = "snapshot"
        package var session: Int64
        package var seq: Int64
        package var time: Double
        package var kind: String
        package var state: String
        package var encoding: String?
    }

    package struct EventLine: Codable {
        package var type = "event"
        package var seq: Int64
        package var session: Int64
        package var time: Double
        package var action: String
        package var payload: String?
        package var encoding: String?
        package var source: ActionSource
        package var redaction: String?
        /// The seq of its cause and of its chain's root (see ``LoggedEvent/cause``); absent
        /// when not known, and in exports made before causes were recorded.
        package var cause: Int64? = nil
        package var root: Int64? = nil
    }

    package struct GapLine: Codable {
        package var type = "gap"
        package var gap: LogGap
    }

    package struct LineType: Decodable {
        package var type: String
    }

    package static func encode(_ data: Data, isText: Bool) -> (String, String?) {
        isText ? (String(decoding: data, as: UTF8.self), nil) : (data.base64EncodedString(), "base64")
    }

    package static func decode(_ text: String, encoding: String?, line: Int, path: String) throws(EventLogError) -> Data {
        guard let encoding else { return Data(text.utf8) }
        guard encoding == "base64", let data = Data(base64Encoded: text) else {
            throw .corrupt(path: path, detail: "line \(line): payload encoding '\(encoding)' is not base64 data")
        }
        return data
    }
}

extension LogReader {
    /// Writes the whole log (or the events `filter` selects, with their sessions and the
    /// snapshots they need) as portable JSON Lines.
    ///
    /// - Parameters:
    ///   - url: The file to write (replaced if it exists; never the log itself), readable and
    ///     writable by its owner only, like the log.
    ///   - filter: Which events; sessions and snapshots follow the events chosen.
    /// - Returns: How many events were written.
    ///
    /// The export is of one moment of the log (``readingConsistently(_:)``), whatever other
    /// writers and retention do while it runs.
    @discardableResult
    public func export(to url: URL, filter: EventFilter = EventFilter()) throws(EventLogError) -> Int {
        for suffix in ["", "-wal", "-shm"] where FileIdentity(path: path + suffix).map({ $0 == FileIdentity(path: url.path) }) == true {
            throw .readOnly(path: url.path, detail: "it is the log being exported (or its\(suffix.isEmpty ? "" : " " + suffix) file); export to another file")
        }
        return try readingConsistently { log throws(EventLogError) in try log.writeExport(to: url, filter: filter) }
    }

    /// The export, read from this reader.
    private func writeExport(to url: URL, filter: EventFilter) throws(EventLogError) -> Int {
        let writer = try ExportFileWriter(url: url)

        var sessions = try self.sessions()
        if let session = filter.session { sessions = sessions.filter { $0.id == session } }
        let version = sessions.contains { $0.ending?.kind == .suspended } ? 4 : sessions.contains { $0.encryption != nil } ? 3 : 2
        try writer.header(version: version, schemaVersion: try schemaVersion(), logID: try identity())
        for symbol in try storedSymbols() { try writer.symbol(id: symbol.id, name: symbol.name) }
        var count = 0
        for session in sessions {
            let isText = storesText(session)
            var sessionFilter = filter
            sessionFilter.session = session.id
            var cursor = events(sessionFilter, pageSize: 2_000)
            guard let first = try cursor.next() else {
                if filter.seqs == nil && filter.actionCase == nil && filter.file == nil && filter.line == nil {
                    try writer.session(session, shapes: try exportedShapes(session))
                    // Its initial snapshot, or — emptied by retention but live, or ended after
                    // its last snapshot — the one it continues from.
                    if let latest = try snapshot(session: session.id, atOrBefore: .max) {
                        try writer.snapshot(session: session.id, seq: latest.seq, time: latest.time, kind: latest.kind, state: latest.state, isText: isText)
                    }
                }
                continue
            }
            try writer.session(session, shapes: try exportedShapes(session))
            // The snapshots a replay of the chosen events needs: the one at or before the first,
            // and every later one up to the last chosen event.
            // (A tampered seq of Int64.min has nothing before it.)
            let start = try snapshot(session: session.id, atOrBefore: first.seq == .min ? .min : first.seq - 1)
            // Never past the last chosen event: a later snapshot would carry state the export
            // leaves out (and a report's window must not say what came after its trigger).
            let last = try events(sessionFilter, before: .max, count: 1).last?.seq ?? first.seq
            for entry in try snapshotIndex(session: session.id) where entry.seq >= (start?.seq ?? 0) && entry.seq <= last {
                guard let snapshot = try snapshot(session: session.id, atOrBefore: entry.seq), snapshot.seq == entry.seq else { continue }
                try writer.snapshot(session: session.id, seq: snapshot.seq, time: snapshot.time, kind: snapshot.kind, state: snapshot.state, isText: isText)
            }
            var event: LoggedEvent? = first
            while let current = event {
                try writer.event(
                    seq: current.seq, session: current.session, time: current.time, action: current.actionCase,
                    payload: current.payload, isText: isText, source: current.source, redaction: current.redaction,
                    cause: current.cause, root: current.root
                )
                count += 1
                event = try cursor.next()
            }
        }
        // Last, so every session a gap names is declared before it; a resumed session left out
        // of the export is not named.
        let exported = Set(sessions.map(\.id))
        for var gap in try gaps() where exported.contains(gap.session) {
            if let resumed = gap.resumedSession, !exported.contains(resumed) { gap.resumedSession = nil }
            try writer.gap(gap)
        }
        return count
    }

    /// A session's shapes for its export line; none when it recorded none.
    private func exportedShapes(_ session: LogSession) throws(EventLogError) -> SessionShapes? {
        guard session.actionFingerprint != nil || session.stateFingerprint != nil else { return nil }
        return try shapes(session: session.id)
    }
}
