public import Foundation
import GRDB
import Rewind
public import RewindLogCore

extension EventLog {
    /// Creates a log at `path` from a portable export, keeping its sessions, seqs, snapshots,
    /// payloads and sources.
    ///
    /// - Parameters:
    ///   - url: The export (JSON Lines).
    ///   - path: Where to create the log; it must not exist yet.
    /// - Returns: The new log, open for reading and writing.
    /// - Throws: `EventLogError` naming the line of a malformed export; nothing is left at
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
        /// Each session's first event in the export: an export holds a run of a session's
        /// events, so a cause before it is not in the file and reads as unknown.
        var firstSeqs: [Int64: Int64] = [:]
        /// The shared payload rows known to be in place (one transaction; see `SharedPayloads`).
        var sharedPresent = SharedPayloads.Presence()
        var sawHeader = false
        /// Sessions whose end the export did not say: they end at their last imported seq.
        var unended: Set<Int64> = []
        while let line = try reader.next() {
            number += 1
            if line.isEmpty { continue }
            func requireSeq(_ value: Int64, _ what: String, min: Int64) throws {
                guard value >= min, value <= LoggedEvent.largestSeq else {
                    throw EventLogError.corrupt(path: exportPath, detail: "line \(number): \(what) \(value) is outside \(min)…\(LoggedEvent.largestSeq)")
                }
            }
            // Text no store keeps whole is refused, never cut (see `LogText`).
            func storable(_ text: String?, _ what: String) throws {
                guard LogText.isStorable(text) else { throw EventLogError.corrupt(path: exportPath, detail: "line \(number): " + LogText.refusal(what)) }
            }
            func storable(_ data: Data, isText: Bool, _ what: String) throws {
                // Over the bytes, not `Data`'s iterator: a byte at a time through it was 3 % of an import.
                guard !isText || !data.withUnsafeBytes({ $0.contains(0) }) else { throw EventLogError.corrupt(path: exportPath, detail: "line \(number): " + LogText.refusal(what)) }
            }
            func invalid(_ error: ExportLine.Invalid) -> EventLogError {
                .corrupt(path: exportPath, detail: "line \(number) is not a valid \(error.type): \(error.underlying)")
            }
            let parsed: ExportLine
            do {
                parsed = try ExportLine.decoding(line, with: decoder)
            } catch let error as ExportLine.Invalid {
                throw invalid(error)
            } catch {
                // Not JSON, or not an object.
                throw invalid(ExportLine.Invalid(type: "\(PortableLog.LineType.self)", underlying: error))
            }
            do {
                switch parsed {
                case let .header(header):
                    guard header.format == "rewind-export", header.version <= PortableLog.version else {
                        throw EventLogError.newerSchema(path: exportPath, found: header.version, supported: PortableLog.version)
                    }
                    // The import is the same log, moved: it keeps the identity until it is
                    // recorded into, when it becomes a log of its own (`file` -1; schema 12).
                    if let id = header.logID {
                        try db.execute(sql: "UPDATE log_identity SET uuid = ?, file = -1", arguments: [id.uuidString.lowercased()])
                    }
                    sawHeader = true
                case let .symbol(symbol):
                    try requireSeq(symbol.id, "symbol id", min: 1)
                    try storable(symbol.name, "the symbol's name")
                    try db.cachedStatement(sql: "INSERT INTO symbols (id, name) VALUES (?, ?)").execute(arguments: [symbol.id, symbol.name])
                    let learned = [CodecSymbol(id: symbol.id, name: symbol.name)]
                    do {
                        for codec in log.codecs.interning { try codec.learn(learned) }
                    } catch let damage as SymbolTableDamage {
                        throw EventLogError.corrupt(path: exportPath, detail: "line \(number): \(damage)")
                    }
                    log.symbolWatermark.withLock { $0 = max($0, symbol.id) }
                case let .session(decoded):
                    guard sawHeader else { throw EventLogError.corrupt(path: exportPath, detail: "line \(number): no rewind-export header before it") }
                    let line: PortableLog.SessionLine
                    switch decoded {
                    case let .success(decoded): line = decoded
                    case let .failure(error): throw invalid(error)
                    }
                    let session = line.session
                    try requireSeq(session.id, "session id", min: 1)
                    try requireSeq(session.baseSeq, "base seq", min: 0)
                    for (text, what) in [(session.app.id, "the app's id"), (session.app.version, "the app's version"), (session.codec, "the codec's name"),
                                         (session.info ?? "", "the session's info"), (session.encryption?.keyID ?? "", "the key id")] {
                        try storable(text, what)
                    }
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
                    // A crash mark belongs to a crashed session only, a hang mark to a hung one.
                    if ending.kind != .crashed { ending.crash = nil }
                    if ending.kind != .hung { ending.hang = nil }
                    try db.execute(
                        sql: """
                            INSERT INTO sessions (id, app_id, app_version, action_schema_version, state_schema_version, codec, started_at, base_seq, info,
                                                  key_id, key_salt, key_check, action_shape_id, state_shape_id, uuid, ending, end_seq, ended_at, crash)
                            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                            """,
                        arguments: [session.id, session.app.id, session.app.version, session.app.actionSchemaVersion,
                                    session.app.stateSchemaVersion, session.codec, session.startedAt, session.baseSeq, session.info,
                                    encryption?.keyID, encryption?.salt, encryption?.check, actionShape, stateShape,
                                    UUID().uuidString.lowercased(), ending.kind.rawValue, ending.seq, ending.time, ending.storedMarkText]
                    )
                    if session.ending == nil { unended.insert(session.id) }
                    codecs[session.id] = log.storesText(session)
                    if encryption == nil { clear.insert(session.id) }
                case let .snapshot(snapshot):
                    try requireSeq(snapshot.seq, "snapshot seq", min: 0)
                    guard let isText = codecs[snapshot.session] else {
                        throw EventLogError.corrupt(path: exportPath, detail: "line \(number): snapshot of session \(snapshot.session), which was not declared before it")
                    }
                    let state = try PortableLog.decode(snapshot.state, encoding: snapshot.encoding, line: number, path: exportPath)
                    try storable(state, isText: isText, "the snapshot")
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
                case let .event(event):
                    try requireSeq(event.seq, "seq", min: 1)
                    guard let isText = codecs[event.session] else {
                        throw EventLogError.corrupt(path: exportPath, detail: "line \(number): event of session \(event.session), which was not declared before it")
                    }
                    let source = event.source
                    for (text, what) in [(event.action, "the action's case name"), (source.file, "the source file"), (source.function, "the source function"),
                                         (source.info ?? "", "the note"), (event.redaction ?? "", "the redaction")] {
                        try storable(text, what)
                    }
                    let sourceID = try log.sources.id(
                        for: .init(file: source.file, function: source.function, line: source.line, column: source.column, origin: source.origin.rawValue),
                        in: db
                    )
                    let payload = try event.payload.map { text throws in try PortableLog.decode(text, encoding: event.encoding, line: number, path: exportPath) }
                    if let payload { try storable(payload, isText: isText, "the payload") }
                    // Stored as the recorder stores it: a payload in the clear that repeats, once.
                    let shared = clear.contains(event.session)
                        ? try payload.flatMap { try log.sharedPayloads.reference(for: $0, isText: isText, present: &sharedPresent, in: db) }
                        : nil
                    let value: DatabaseValue = shared?.databaseValue
                        ?? payload.map { isText ? String(decoding: $0, as: UTF8.self).databaseValue : $0.databaseValue } ?? .null
                    // A cause that does not come before its event (damage, crafting), or that the
                    // export left out, is not known.
                    let first = firstSeqs[event.session] ?? event.seq
                    firstSeqs[event.session] = first
                    let causeDistance = event.cause.flatMap { $0 >= first ? EventLink.seq($0).distance(from: event.seq) : nil }.flatMap { $0 >= 1 ? $0 : nil }
                    let rootDistance = event.root.flatMap { $0 >= first ? EventLink.seq($0).distance(from: event.seq) : nil }
                    // Prepared once per import, as the recorder's appends are: GRDB's
                    // `execute(sql:)` compiles the statement for each line (with it, the import
                    // fuzzer's debug run took a fifth longer).
                    try db.cachedStatement(
                        sql: """
                            INSERT INTO events (seq, session_id, time, action_id, payload, source_id, info, redaction, cause_distance, root_distance)
                            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                            """
                    ).execute(
                        arguments: [event.seq, event.session, event.time, try log.actions.id(for: event.action, in: db), value, sourceID, source.info, event.redaction,
                                    causeDistance, rootDistance]
                    )
                case let .gap(line):
                    let gap = line.gap
                    for session in [gap.session] + (gap.resumedSession.map { [$0] } ?? []) where codecs[session] == nil {
                        throw EventLogError.corrupt(path: exportPath, detail: "line \(number): gap naming session \(session), which was not declared before it")
                    }
                    try requireSeq(gap.afterSeq, "gap's seq", min: 0)
                    try storable(gap.reason, "the gap's reason")
                    for name in gap.cases.keys { try storable(name, "a lost action's case name") }
                    guard gap.lost >= 0 else { throw EventLogError.corrupt(path: exportPath, detail: "line \(number): a gap of \(gap.lost) actions") }
                    try insertGap(db, gap)
                case let .unknown(other):
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
        // Given back as the recorder's writes give it: the next write knows these rows too.
        log.sharedPayloads.keep(sharedPresent)
        try recomputeSessionBounds(db)
        for session in unended {
            try db.execute(sql: "UPDATE sessions SET end_seq = coalesce(last_seq, base_seq) WHERE id = ?", arguments: [session])
        }
    }
}
