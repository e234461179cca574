import Foundation
import GRDB
import Rewind
@testable import RewindLogCore
@testable import RewindSQLite
import RewindTestSupport
import Testing

/// Rows a tampered file can hold whatever its schema says: every column of every table set to
/// NULL, to a value of each other type and to numbers out of range, one at a time. Every read
/// ends in a result or an `EventLogError` — a trap would end the test run — and the targeted
/// cases say what is wrong.
@Suite("Tampered rows")
struct TamperedRowTests {
    /// A log with two sessions (JSON and binary), events, snapshots, symbols, shared payloads and
    /// a gap.
    static func makeLog(in folder: TemporaryDirectory) throws -> String {
        let path = folder.file("base.rewind")
        let log = try EventLog(path: path)
        for codec in [JSONPayloadCodec() as any PayloadCodec, BinaryPayloadCodec()] {
            let session = try log.beginSession(app: AppIdentity(id: "app"), codec: codec, initialState: ["count": 0])
            // Two payloads, three times each: the third time each is stored once, in `payloads`.
            let seqs = try #require(try log.append((0..<6).map { EventRecord(["add": $0 % 2 + 1 << 62], source: ActionSource(info: "n\($0)")) }, to: session))
            try log.appendSnapshot(["count": 3], to: session, after: seqs.lowerBound + 2)
        }
        try log.recordGap(LogGap(session: 2, afterSeq: 12, lost: 2, cases: ["add": 2], reason: "disk full", firstTime: 1, lastTime: 2, resumedSession: nil))
        try log.close()
        let shared = try DatabaseQueue(path: path).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM payloads") ?? 0 }
        #expect(shared >= 2, "the payloads table has rows to tamper with")
        return path
    }

    /// Copies the log and runs `sql` on the copy with NOT NULL, STRICT and foreign keys lifted,
    /// as in a hostile file.
    static func tampered(_ base: String, in folder: TemporaryDirectory, name: String, _ sql: String, _ arguments: StatementArguments = []) throws -> String {
        let path = folder.file(name)
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: base, toPath: path)
        var configuration = Configuration()
        configuration.foreignKeysEnabled = false
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? queue.close() }
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA writable_schema = ON")
            try db.execute(sql: "UPDATE sqlite_schema SET sql = replace(replace(sql, 'NOT NULL', ''), ') STRICT', ')') WHERE type = 'table'")
            try db.execute(sql: "PRAGMA writable_schema = RESET")
            try db.execute(sql: sql, arguments: arguments)
        }
        return path
    }

    /// Every read the tools make, on the log at `path`; the errors thrown, in order.
    static func readEverything(_ path: String) -> [EventLogError] {
        var errors: [EventLogError] = []
        func attempt(_ body: () throws(EventLogError) -> Void) {
            do { try body() } catch { errors.append(error) }
        }
        let log: EventLog
        do { log = try EventLog(path: path, mode: .readOnly) } catch { return [error] }
        defer { try? log.close() }
        var sessions: [LogSession] = []
        attempt { () throws(EventLogError) in sessions = try log.sessions() }
        attempt { () throws(EventLogError) in var cursor = log.events(); while try cursor.next() != nil {} }
        attempt { () throws(EventLogError) in
            // Causes walked from every event, and what each led to: damage ends a chain as unknown.
            var cursor = log.events()
            while let event = try cursor.next() {
                let chain = try log.causalChain(to: event.seq)
                #expect(chain.events.last?.seq == event.seq)
                #expect(zip(chain.events, chain.events.dropFirst()).allSatisfy { $0.seq < $1.seq }, "a chain only goes back")
            }
        }
        attempt { () throws(EventLogError) in _ = try log.statistics() }
        attempt { () throws(EventLogError) in _ = try log.checkIntegrity() }
        attempt { () throws(EventLogError) in _ = try log.gaps() }
        attempt { () throws(EventLogError) in _ = try log.seqRange() }
        for session in sessions {
            attempt { () throws(EventLogError) in _ = try log.session(session.id) }
            attempt { () throws(EventLogError) in _ = try log.snapshotIndex(session: session.id) }
            attempt { () throws(EventLogError) in
                let reader = try SessionReader(log: log, session: session)
                _ = try reader.initialState([String: Int].self)
                _ = try reader.forEachAction([String: Int].self, from: session.baseSeq + 1, through: session.lastSeq) { _, _ in .continue }
            }
        }
        return errors
    }

    @Test("every column of every table, NULL or of another type or out of range: a result or an EventLogError, never a trap")
    func everyColumnEveryValue() throws {
        let folder = try TemporaryDirectory()
        let base = try Self.makeLog(in: folder)
        let columns = try DatabaseQueue(path: base).read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").flatMap { table in
                try db.columns(in: table).map { (table, $0.name) }
            }
        }
        #expect(columns.count >= 40, "every table's columns: \(columns.count)")
        let values: [DatabaseValue] = [.null, "text".databaseValue, 2.5.databaseValue, Data([0xff, 0]).databaseValue,
                                       (-1 as Int64).databaseValue, Int64.max.databaseValue, Int64.min.databaseValue]
        var tried = 0, failed = 0, refused = 0
        for (table, column) in columns {
            for value in values {
                let path: String
                do {
                    path = try Self.tampered(base, in: folder, name: "t.rewind", "UPDATE \(table.quotedDatabaseIdentifier) SET \(column.quotedDatabaseIdentifier) = ?", [value])
                } catch let error as DatabaseError where error.resultCode == .SQLITE_MISMATCH || error.resultCode == .SQLITE_CONSTRAINT {
                    // A rowid can only hold an integer, a UNIQUE column not the same value twice:
                    // no file can hold that either.
                    refused += 1
                    continue
                }
                tried += 1
                let errors = Self.readEverything(path)
                failed += errors.isEmpty ? 0 : 1
                for error in errors { #expect(!error.description.isEmpty) }
            }
        }
        #expect(tried + refused == columns.count * values.count)
        #expect(refused < columns.count * 2, "SQLite refused only what no file can hold: \(refused)")
        #expect(failed > tried / 3, "most tamperings are noticed: \(failed) of \(tried)")
    }

    @Test("a NULL where a value must be names the column")
    func nullNamesTheColumn() throws {
        let folder = try TemporaryDirectory()
        let base = try Self.makeLog(in: folder)
        let path = try Self.tampered(base, in: folder, name: "null.rewind", "UPDATE sessions SET app_id = NULL WHERE id = 1")
        let error = #expect(throws: EventLogError.self) { try EventLog(path: path, mode: .readOnly).sessions() }
        #expect(error == .corrupt(path: path, detail: "sessions.app_id holds NULL where String is expected"))
        let time = try Self.tampered(base, in: folder, name: "time.rewind", "UPDATE events SET time = 'noon' WHERE seq = 3")
        var cursor = try EventLog(path: time, mode: .readOnly).events()
        let timeError = #expect(throws: EventLogError.self) { try cursor.collect() }
        #expect(timeError?.description.contains("events.time holds text where Double is expected") == true)
    }

    @Test("a negative line or column reads as 0; an event whose case points nowhere is reported, not skipped")
    func targetedTampering() throws {
        let folder = try TemporaryDirectory()
        let base = try Self.makeLog(in: folder)
        let negative = try Self.tampered(base, in: folder, name: "negative.rewind", #"UPDATE sources SET line = -7, "column" = -1"#)
        var cursor = try EventLog(path: negative, mode: .readOnly).events()
        let events = try cursor.collect()
        #expect(events.count == 12)
        #expect(events.allSatisfy { $0.source.line == 0 && $0.source.column == 0 })

        let nowhere = try Self.tampered(base, in: folder, name: "nowhere.rewind", "UPDATE events SET action_id = 999 WHERE seq = 4")
        var nowhereCursor = try EventLog(path: nowhere, mode: .readOnly).events()
        let error = #expect(throws: EventLogError.self) { try nowhereCursor.collect() }
        #expect(error?.description.contains("event 4 names a case or source that the actions or sources table does not hold") == true)

        let reversed = try Self.tampered(base, in: folder, name: "reversed.rewind", "UPDATE sessions SET first_seq = last_seq + 5 WHERE id = 1")
        let reversedError = #expect(throws: EventLogError.self) { try EventLog(path: reversed, mode: .readOnly).sessions() }
        #expect(reversedError?.description.contains("session 1's seqs runs from 11 back to 6") == true)

        // Seqs at both ends of Int64: the integrity check's span must not overflow.
        let extremes = try Self.tampered(base, in: folder, name: "extremes.rewind", "UPDATE events SET seq = -9223372036854775808 WHERE seq = 1; UPDATE events SET seq = 9223372036854775807 WHERE seq = 12")
        let report = try EventLog(path: extremes, mode: .readOnly).checkIntegrity()
        #expect(!report.isSound)

        let hugeID = try Self.tampered(base, in: folder, name: "huge.rewind", "UPDATE actions SET id = 1000000000000 WHERE id = 1")
        let hugeError = #expect(throws: EventLogError.self) {
            let log = try EventLog(path: hugeID, mode: .readOnly)
            let reader = try SessionReader(log: log, session: try log.session(1))
            _ = try reader.forEachAction([String: Int].self, from: 1, through: 6) { _, _ in .continue }
        }
        #expect(hugeError?.description.contains("an interned row has id 1000000000000") == true)
    }
}

@Suite("Hostile exports")
struct HostileExportTests {
    @Test("a line of 100 MB is read in one pass and refused with the line named, not hung on", .timeLimit(.minutes(1)))
    func hugeLine() throws {
        let folder = try TemporaryDirectory()
        var export = Data((#"{"exportedAt":0,"format":"rewind-export","schemaVersion":6,"type":"header","version":2}"# + "\n").utf8)
        export.append(Data(#"{"type":"event","seq":1,"session":1,"payload":""#.utf8))
        export.append(Data(repeating: UInt8(ascii: "a"), count: 100_000_000))
        export.append(Data("\"}\n".utf8))
        let url = URL(fileURLWithPath: folder.file("huge.jsonl"))
        try export.write(to: url)
        let error = #expect(throws: EventLogError.self) { try EventLog.importLog(from: url, to: folder.file("out.rewind")) }
        #expect(error?.description.contains("line 2") == true)
        #expect(!FileManager.default.fileExists(atPath: folder.file("out.rewind")))
    }
}
