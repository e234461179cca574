public import Foundation
import GRDB
import Rewind

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
    /// line's `encryption`). Older readers refuse a newer file whole, by its version, with a
    /// clear error, so an export is written at the lowest version that holds what it holds: 3
    /// only when a session in it is encrypted. Every earlier version imports.
    public static let version = 3

    struct Header: Codable {
        var type = "header"
        var format = "rewind-export"
        var version: Int
        var exportedAt: Double
        var schemaVersion: Int
        /// The exported log's identity (schema 9), which its import keeps; older readers
        /// ignore it.
        var logID: UUID?
    }

    struct SymbolLine: Codable {
        var type = "symbol"
        var id: Int64
        var name: String
    }

    struct SessionLine: Codable {
        var type = "session"
        var session: LogSession
        /// The shapes of the session's types (schema 8), when recorded. Older readers ignore
        /// the key; import recomputes the fingerprints from the shapes rather than trusting
        /// the session's.
        var shapes: SessionShapes?
    }

    struct SnapshotLine: Codable {
        var type = "snapshot"
        var session: Int64
        var seq: Int64
        var time: Double
        var kind: String
        var state: String
        var encoding: String?
    }

    struct EventLine: Codable {
        var type = "event"
        var seq: Int64
        var session: Int64
        var time: Double
        var action: String
        var payload: String?
        var encoding: String?
        var source: ActionSource
        var redaction: String?
    }

    struct GapLine: Codable {
        var type = "gap"
        var gap: LogGap
    }

    struct LineType: Decodable {
        var type: String
    }

    static func encode(_ data: Data, isText: Bool) -> (String, String?) {
        isText ? (String(decoding: data, as: UTF8.self), nil) : (data.base64EncodedString(), "base64")
    }

    static func decode(_ text: String, encoding: String?, line: Int, path: String) throws(EventLogError) -> Data {
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
        let writer = try PortableLogWriter(url: url)

        var sessions = try self.sessions()
        if let session = filter.session { sessions = sessions.filter { $0.id == session } }
        let version = sessions.contains { $0.encryption != nil } ? PortableLog.version : 2
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
            for entry in try snapshotIndex(session: session.id) where entry.seq >= (start?.seq ?? 0) {
                guard let snapshot = try snapshot(session: session.id, atOrBefore: entry.seq), snapshot.seq == entry.seq else { continue }
                try writer.snapshot(session: session.id, seq: snapshot.seq, time: snapshot.time, kind: snapshot.kind, state: snapshot.state, isText: isText)
            }
            var event: LoggedEvent? = first
            while let current = event {
                try writer.event(
                    seq: current.seq, session: current.session, time: current.time, action: current.actionCase,
                    payload: current.payload, isText: isText, source: current.source, redaction: current.redaction
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

extension EventLog {
    /// Creates a log at `path` from a portable export, keeping its sessions, seqs, snapshots,
    /// payloads and sources.
    ///
    /// - Parameters:
    ///   - url: The export (JSON Lines).
    ///   - path: Where to create the log; it must not exist yet.
    /// - Returns: The new log, open for reading and writing.
    /// - Throws: ``EventLogError`` naming the line of a malformed export; nothing is left at
    ///   `path` when the import fails.
    public static func importLog(from url: URL, to path: String) throws(EventLogError) -> EventLog {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw .readOnly(path: path, detail: "the file exists already; import creates a new log")
        }
        guard FileManager.default.fileExists(atPath: url.path) else { throw .fileNotFound(path: url.path) }
        let type = (try? FileManager.default.attributesOfItem(atPath: url.path)[.type]) as? FileAttributeType
        guard type == .typeRegular else {
            throw .notAnExport(path: url.path, reason: "not a regular file")
        }
        guard let reader = LineReader(url: url) else { throw .readOnly(path: url.path, detail: "the file cannot be read") }
        let log = try EventLog(path: path)
        do {
            try log.importLines(reader, from: url)
            return log
        } catch {
            try? log.close()
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            throw error
        }
    }

    private func importLines(_ reader: LineReader, from url: URL) throws(EventLogError) {
        do {
            try write { db in try Self.importLines(reader, into: self, db: db, exportPath: url.path) }
        } catch {
            throw EventLogError.wrapping(error, path: url.path)
        }
    }

    private static func importLines(_ reader: LineReader, into log: EventLog, db: Database, exportPath: String) throws {
        let decoder = JSONDecoder()
        var number = 0
        var codecs: [Int64: Bool] = [:]
        /// The sessions in the clear, whose snapshots are deflated as the writer deflates them.
        var clear: Set<Int64> = []
        /// The shared payload rows this import has inserted or checked (one transaction).
        var sharedPresent: Set<Int64> = []
        var sawHeader = false
        /// Sessions whose end the export did not say: they end at their last imported seq.
        var unended: Set<Int64> = []
        while let line = try reader.next() {
            number += 1
            if line.isEmpty { continue }
            func requireSeq(_ value: Int64, _ what: String, min: Int64) throws {
                guard value >= min, value <= EventLog.largestSeq else {
                    throw EventLogError.corrupt(path: exportPath, detail: "line \(number): \(what) \(value) is outside \(min)…\(EventLog.largestSeq)")
                }
            }
            func decode<T: Decodable>(_ type: T.Type) throws -> T {
                do { return try decoder.decode(type, from: line) } catch {
                    throw EventLogError.corrupt(path: exportPath, detail: "line \(number) is not a valid \(T.self): \(error)")
                }
            }
            do {
                switch try decode(PortableLog.LineType.self).type {
                case "header":
                    let header = try decode(PortableLog.Header.self)
                    guard header.format == "rewind-export", header.version <= PortableLog.version else {
                        throw EventLogError.newerSchema(path: exportPath, found: header.version, supported: PortableLog.version)
                    }
                    // The import is the same log, moved: it keeps the identity until it is
                    // recorded into, when it becomes a log of its own (`file` -1; schema 12).
                    if let id = header.logID {
                        try db.execute(sql: "UPDATE log_identity SET uuid = ?, file = -1", arguments: [id.uuidString.lowercased()])
                    }
                    sawHeader = true
                case "symbol":
                    let symbol = try decode(PortableLog.SymbolLine.self)
                    try requireSeq(symbol.id, "symbol id", min: 1)
                    try db.execute(sql: "INSERT INTO symbols (id, name) VALUES (?, ?)", arguments: [symbol.id, symbol.name])
                    let learned = [CodecSymbol(id: symbol.id, name: symbol.name)]
                    do {
                        for codec in log.codecs.interning { try codec.learn(learned) }
                    } catch let damage as SymbolTableDamage {
                        throw EventLogError.corrupt(path: exportPath, detail: "line \(number): \(damage)")
                    }
                    log.symbolWatermark.withLock { $0 = max($0, symbol.id) }
                case "session":
                    guard sawHeader else { throw EventLogError.corrupt(path: exportPath, detail: "line \(number): no rewind-export header before it") }
                    let line = try decode(PortableLog.SessionLine.self)
                    let session = line.session
                    try requireSeq(session.id, "session id", min: 1)
                    try requireSeq(session.baseSeq, "base seq", min: 0)
                    let encryption = session.encryption
                    if let encryption, encryption.keyID.isEmpty || encryption.salt.count != PayloadSeal.saltSize || encryption.check.count != PayloadSeal.checkSize {
                        throw EventLogError.corrupt(path: exportPath, detail: "line \(number): session \(session.id)'s encryption has an empty key id, or a salt or check of the wrong size")
                    }
                    let actionShape = try internShape(db, line.shapes?.action), stateShape = try internShape(db, line.shapes?.state)
                    // No process records an imported session: one that was live when exported
                    // (or exported before schema 12) ends 'unknown', never 'unclean' (no crash
                    // is known), at its last seq.
                    var ending = session.ending ?? SessionEnding(kind: .unknown, seq: session.baseSeq, time: nil)
                    try requireSeq(ending.seq, "session end seq", min: 0)
                    if ending.time?.isFinite == false { ending.time = nil }
                    try db.execute(
                        sql: """
                            INSERT INTO sessions (id, app_id, app_version, action_schema_version, state_schema_version, codec, started_at, base_seq, info,
                                                  key_id, key_salt, key_check, action_shape_id, state_shape_id, uuid, ending, end_seq, ended_at)
                            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                            """,
                        arguments: [session.id, session.app.id, session.app.version, session.app.actionSchemaVersion,
                                    session.app.stateSchemaVersion, session.codec, session.startedAt, session.baseSeq, session.info,
                                    encryption?.keyID, encryption?.salt, encryption?.check, actionShape, stateShape,
                                    UUID().uuidString.lowercased(), ending.kind.rawValue, ending.seq, ending.time]
                    )
                    if session.ending == nil { unended.insert(session.id) }
                    codecs[session.id] = log.storesText(session)
                    if encryption == nil { clear.insert(session.id) }
                case "snapshot":
                    let snapshot = try decode(PortableLog.SnapshotLine.self)
                    try requireSeq(snapshot.seq, "snapshot seq", min: 0)
                    guard let isText = codecs[snapshot.session] else {
                        throw EventLogError.corrupt(path: exportPath, detail: "line \(number): snapshot of session \(snapshot.session), which was not declared before it")
                    }
                    let state = try PortableLog.decode(snapshot.state, encoding: snapshot.encoding, line: number, path: exportPath)
                    if clear.contains(snapshot.session), let deflated = SnapshotCompression.compressed(state) {
                        try insertSnapshot(
                            db, session: snapshot.session, seq: snapshot.seq, time: snapshot.time, kind: snapshot.kind,
                            columns: (deflated.databaseValue, SnapshotCompression.name)
                        )
                    } else {
                        try insertSnapshot(
                            db, session: snapshot.session, seq: snapshot.seq, time: snapshot.time, kind: snapshot.kind,
                            state: isText ? String(decoding: state, as: UTF8.self).databaseValue : state.databaseValue
                        )
                    }
                case "event":
                    let event = try decode(PortableLog.EventLine.self)
                    try requireSeq(event.seq, "seq", min: 1)
                    guard let isText = codecs[event.session] else {
                        throw EventLogError.corrupt(path: exportPath, detail: "line \(number): event of session \(event.session), which was not declared before it")
                    }
                    let source = event.source
                    let sourceID = try log.sources.id(
                        for: .init(file: source.file, function: source.function, line: source.line, column: source.column, origin: source.origin.rawValue),
                        in: db
                    )
                    let payload = try event.payload.map { text throws in try PortableLog.decode(text, encoding: event.encoding, line: number, path: exportPath) }
                    // Stored as the recorder stores it: a payload in the clear that repeats, once.
                    let shared = clear.contains(event.session)
                        ? try payload.flatMap { try log.sharedPayloads.reference(for: $0, isText: isText, present: &sharedPresent, in: db) }
                        : nil
                    let value: DatabaseValue = shared?.databaseValue
                        ?? payload.map { isText ? String(decoding: $0, as: UTF8.self).databaseValue : $0.databaseValue } ?? .null
                    try db.execute(
                        sql: "INSERT INTO events (seq, session_id, time, action_id, payload, source_id, info, redaction) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        arguments: [event.seq, event.session, event.time, try log.actions.id(for: event.action, in: db), value, sourceID, source.info, event.redaction]
                    )
                case "gap":
                    let gap = try decode(PortableLog.GapLine.self).gap
                    for session in [gap.session] + (gap.resumedSession.map { [$0] } ?? []) where codecs[session] == nil {
                        throw EventLogError.corrupt(path: exportPath, detail: "line \(number): gap naming session \(session), which was not declared before it")
                    }
                    try requireSeq(gap.afterSeq, "gap's seq", min: 0)
                    guard gap.lost >= 0 else { throw EventLogError.corrupt(path: exportPath, detail: "line \(number): a gap of \(gap.lost) actions") }
                    try insertGap(db, gap)
                case let other:
                    throw EventLogError.corrupt(path: exportPath, detail: "line \(number): unknown line type '\(other)'")
                }
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                // A duplicated or reordered line: name it, not just the table's constraint.
                throw EventLogError.corrupt(
                    path: exportPath,
                    detail: "line \(number) cannot be imported (\(error.message ?? "a constraint failed"): a seq, session, snapshot or symbol that appears twice, or a value out of range)"
                )
            }
        }
        guard sawHeader else { throw EventLogError.notAnExport(path: exportPath, reason: "no rewind-export header line") }
        try recomputeSessionBounds(db)
        for session in unended {
            try db.execute(sql: "UPDATE sessions SET end_seq = coalesce(last_seq, base_seq) WHERE id = ?", arguments: [session])
        }
    }
}
