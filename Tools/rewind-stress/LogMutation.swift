import Foundation
import GRDB
import Rewind

/// One way to damage a copy of a log: at the byte level (what a bad disk, a truncated copy or
/// a hostile sender produces) or through SQL (a file that is valid SQLite but not a valid
/// Rewind log: dropped tables and columns, NULLs, numbers out of range, ids that point nowhere).
enum LogMutation: CustomStringConvertible {
    case flipBits(count: Int)
    case truncate(page: Int)
    case zeroPage(Int)
    case swapPages(Int, Int)
    case overwriteBytes(offset: Int, count: Int)
    case wrongApplicationID(Int32)
    case garbageWAL(bytes: Int)
    case dropTable(String)
    case dropColumn(table: String, column: String)
    case nullColumn(table: String, column: String, everyRow: Bool)
    case retypeColumn(table: String, column: String, value: DatabaseValue)
    case sql(String, why: String)

    var description: String {
        switch self {
        case let .flipBits(count): "flip \(count) random bit\(count == 1 ? "" : "s")"
        case let .truncate(page): "truncate after page \(page)"
        case let .zeroPage(page): "zero page \(page + 1)"
        case let .swapPages(a, b): "swap pages \(a + 1) and \(b + 1)"
        case let .overwriteBytes(offset, count): "overwrite \(count) bytes at \(offset) with random ones"
        case let .wrongApplicationID(id): "application_id \(id)"
        case let .garbageWAL(bytes): "a -wal file of \(bytes) random bytes"
        case let .dropTable(table): "drop table \(table)"
        case let .dropColumn(table, column): "drop column \(table).\(column)"
        case let .nullColumn(table, column, every): "NULL in \(table).\(column) (\(every ? "every row" : "one row"))"
        case let .retypeColumn(table, column, value): "\(table).\(column) = \("\(value)".prefix(40)) in one row"
        case let .sql(_, why): why
        }
    }

    /// The log's tables and their columns, as the base file has them.
    struct Schema {
        var columns: [String: [String]]
        var pageCount: Int
        var pageSize: Int

        init(path: String) throws {
            let queue = try DatabaseQueue(path: path)
            defer { try? queue.close() }
            (columns, pageCount, pageSize) = try queue.read { db in
                var columns: [String: [String]] = [:]
                for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'") {
                    columns[table] = try db.columns(in: table).map(\.name)
                }
                return (columns, try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 1, try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4_096)
            }
        }
    }

    /// The mutation of case `index`: the first cases truncate at every page boundary in turn,
    /// the rest are drawn from every family by `random`.
    static func draw(case index: Int, schema: Schema, random: inout SeededRandom) -> LogMutation {
        if index < schema.pageCount { return .truncate(page: index) }
        let tables = schema.columns.keys.sorted()
        let table = tables[random.int(below: tables.count)]
        let columns = schema.columns[table] ?? []
        let column = columns.isEmpty ? "id" : columns[random.int(below: columns.count)]
        let page = random.int(below: schema.pageCount)
        let hostileValues: [DatabaseValue] = [
            (-1 as Int64).databaseValue, Int64.max.databaseValue, Int64.min.databaseValue, (0 as Int64).databaseValue,
            "text".databaseValue, 1.5.databaseValue, Double.infinity.databaseValue, Data([0xff, 0x00, 0xfe]).databaseValue,
            "".databaseValue, String(repeating: "x", count: 100_000).databaseValue,
        ]
        switch random.int(below: 16) {
        case 0, 1: return .flipBits(count: 1 + random.int(below: 8))
        case 2: return .zeroPage(page)
        case 3: return .swapPages(page, random.int(below: schema.pageCount))
        case 4: return .overwriteBytes(offset: random.int(below: schema.pageCount * schema.pageSize), count: 1 + random.int(below: 64))
        case 5: return .wrongApplicationID([0, 1, 0x5157_4e44, -1][random.int(below: 4)])
        case 6: return .garbageWAL(bytes: [0, 32, 4_096, 20_000][random.int(below: 4)])
        case 7: return .dropTable(table)
        case 8: return .dropColumn(table: table, column: column)
        case 9: return .nullColumn(table: table, column: column, everyRow: random.int(below: 2) == 0)
        case 10, 11: return .retypeColumn(table: table, column: column, value: hostileValues[random.int(below: hostileValues.count)])
        default:
            let targeted: [(String, String)] = [
                ("UPDATE sources SET line = -7, \"column\" = -1", "a negative line and column"),
                ("UPDATE events SET seq = 9223372036854775807 WHERE seq = (SELECT max(seq) FROM events)", "a huge seq"),
                ("UPDATE events SET action_id = 999999 WHERE seq = (SELECT seq FROM events ORDER BY random() LIMIT 1)", "a case id that points nowhere"),
                ("UPDATE events SET source_id = -3 WHERE seq = (SELECT seq FROM events ORDER BY random() LIMIT 1)", "a source id that points nowhere"),
                ("DELETE FROM symbols WHERE id = (SELECT id FROM symbols ORDER BY random() LIMIT 1)", "a symbol id that points nowhere"),
                ("UPDATE symbols SET id = id + 1000000", "every symbol id shifted"),
                ("UPDATE symbols SET name = 'x' || name WHERE id = (SELECT min(id) FROM symbols)", "a renamed symbol"),
                ("UPDATE sessions SET codec = 'rot13'", "sessions whose codec is unknown"),
                ("UPDATE sessions SET first_seq = last_seq + 5", "session bounds the wrong way round"),
                ("UPDATE sessions SET event_count = -1, last_seq = 9223372036854775807", "session counts out of range"),
                ("UPDATE sessions SET base_seq = -100", "a negative base seq"),
                ("UPDATE events SET payload = randomblob(40) WHERE seq = (SELECT seq FROM events ORDER BY random() LIMIT 1)", "random bytes as a payload"),
                ("UPDATE events SET payload = substr(payload, 1, length(payload) / 2) WHERE seq IN (SELECT seq FROM events ORDER BY random() LIMIT 5)", "truncated payloads"),
                ("UPDATE snapshots SET state = randomblob(64) WHERE seq = (SELECT seq FROM snapshots ORDER BY random() LIMIT 1)", "random bytes as a state"),
                ("UPDATE snapshots SET state = substr(state, 1, 10)", "truncated states"),
                ("DELETE FROM snapshots WHERE kind = 'initial'", "no initial snapshots"),
                ("UPDATE snapshots SET compression = 'lz4' WHERE compression IS NOT NULL", "snapshots compressed in a way no build knows"),
                ("UPDATE snapshots SET compression = 'zlib' WHERE compression IS NULL", "clear snapshots marked as deflated"),
                ("UPDATE snapshots SET compression = NULL WHERE compression IS NOT NULL", "deflated snapshots marked as clear"),
                ("UPDATE snapshots SET state = CAST(X'FFFFFFFFFFFFFF7F' || substr(state, 9) AS BLOB) WHERE compression IS NOT NULL", "deflated snapshots claiming 2^63 bytes"),
                ("UPDATE snapshots SET state = CAST(substr(state, 1, 8) || randomblob(length(state) - 8) AS BLOB) WHERE compression IS NOT NULL", "deflated snapshots with a random stream"),
                ("UPDATE snapshots SET session_id = 424242", "snapshots of no session"),
                ("UPDATE events SET session_id = (SELECT max(id) FROM sessions) WHERE seq % 3 = 0", "events moved between sessions"),
                ("UPDATE events SET time = -1e300", "times out of range"),
                ("UPDATE actions SET name = ''", "empty case names"),
                ("INSERT INTO gaps (session_id, after_seq, lost, cases, reason, first_time, last_time) VALUES (77, -5, -9, 'not json', '', 0, 0)", "a gap of nothing"),
                ("PRAGMA user_version = 99", "a newer schema version"),
                ("PRAGMA user_version = -1", "a negative schema version"),
                ("UPDATE sessions SET app_id = NULL", "NULL app ids"),
                ("CREATE TABLE IF NOT EXISTS extra (x); DROP VIEW IF EXISTS timeline", "no timeline view"),
                ("UPDATE sessions SET key_id = 'nobody' WHERE key_id IS NOT NULL", "an encrypted session naming a key no one has"),
                ("UPDATE sessions SET key_id = NULL WHERE key_id IS NOT NULL", "an encrypted session marked as clear"),
                ("UPDATE sessions SET key_id = 'fuzz', key_salt = randomblob(16), key_check = randomblob(16) WHERE key_id IS NULL", "clear sessions marked as encrypted"),
                ("UPDATE sessions SET key_salt = X'00' WHERE key_id IS NOT NULL", "a key salt of the wrong size"),
                ("UPDATE sessions SET key_check = randomblob(16) WHERE key_id IS NOT NULL", "a key check that does not match"),
                ("UPDATE events SET payload = (SELECT payload FROM events WHERE seq = 1 + abs(random()) % 900) WHERE seq = 1 + abs(random()) % 900", "a payload moved to another event"),
                ("UPDATE snapshots SET state = (SELECT state FROM snapshots ORDER BY random() LIMIT 1) WHERE seq = (SELECT seq FROM snapshots ORDER BY random() LIMIT 1)", "a snapshot moved to another seq"),
            ]
            let (sql, why) = targeted[random.int(below: targeted.count)]
            return .sql(sql, why: why)
        }
    }

    /// Damages the file at `path` (the log's bytes are `bytes`). Returns `false` when the
    /// mutation does not apply to this file (SQLite refused it): the case is not counted.
    func apply(to path: String, bytes: Data, pageSize: Int, random: inout SeededRandom) throws -> Bool {
        var data = bytes
        switch self {
        case let .flipBits(count):
            for _ in 0..<count {
                let bit = random.int(below: data.count * 8)
                data[bit / 8] ^= UInt8(1 << (bit % 8))
            }
        case let .truncate(page):
            data = data.prefix(page * pageSize)
        case let .zeroPage(page):
            data.replaceSubrange(Self.range(of: page, in: data, pageSize: pageSize), with: Data(count: Self.range(of: page, in: data, pageSize: pageSize).count))
        case let .swapPages(a, b):
            let first = Self.range(of: a, in: data, pageSize: pageSize), second = Self.range(of: b, in: data, pageSize: pageSize)
            guard first != second, first.count == second.count else { return false }
            let copy = data[first]
            data.replaceSubrange(first, with: data[second])
            data.replaceSubrange(second, with: copy)
        case let .overwriteBytes(offset, count):
            let range = min(offset, data.count)..<min(offset + count, data.count)
            data.replaceSubrange(range, with: (0..<range.count).map { _ in UInt8(truncatingIfNeeded: random.int(below: 256)) })
        case let .wrongApplicationID(id):
            guard data.count >= 72 else { return false }
            withUnsafeBytes(of: id.bigEndian) { data.replaceSubrange(68..<72, with: $0) }
        case let .garbageWAL(count):
            let wal = Data((0..<count).map { _ in UInt8(truncatingIfNeeded: random.int(below: 256)) })
            try wal.write(to: URL(fileURLWithPath: path + "-wal"))
        case .dropTable, .dropColumn, .nullColumn, .retypeColumn, .sql:
            try data.write(to: URL(fileURLWithPath: path))
            return try applySQL(to: path)
        }
        try data.write(to: URL(fileURLWithPath: path))
        return true
    }

    private static func range(of page: Int, in data: Data, pageSize: Int) -> Range<Int> {
        min(page * pageSize, data.count)..<min((page + 1) * pageSize, data.count)
    }

    private func applySQL(to path: String) throws -> Bool {
        var configuration = Configuration()
        // The tampering needs what a careful writer never does: schema edits, no constraints.
        configuration.foreignKeysEnabled = false
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? queue.close() }
        do {
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA legacy_alter_table = ON")
                switch self {
                case let .dropTable(table):
                    try db.execute(sql: "DROP TABLE \(table.quotedDatabaseIdentifier)")
                case let .dropColumn(table, column):
                    let kept = try db.columns(in: table).map(\.name).filter { $0 != column }
                    guard !kept.isEmpty else { throw DatabaseError(message: "no column would be left") }
                    let list = kept.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
                    try db.execute(sql: """
                        CREATE TABLE rewind_fuzz AS SELECT \(list) FROM \(table.quotedDatabaseIdentifier);
                        DROP TABLE \(table.quotedDatabaseIdentifier);
                        ALTER TABLE rewind_fuzz RENAME TO \(table.quotedDatabaseIdentifier);
                        """)
                case let .nullColumn(table, column, everyRow):
                    try Self.dropConstraints(of: table, in: db)
                    let which = everyRow ? "" : " WHERE rowid = (SELECT rowid FROM \(table.quotedDatabaseIdentifier) ORDER BY random() LIMIT 1)"
                    try db.execute(sql: "UPDATE \(table.quotedDatabaseIdentifier) SET \(column.quotedDatabaseIdentifier) = NULL\(which)")
                case let .retypeColumn(table, column, value):
                    try Self.dropConstraints(of: table, in: db)
                    try db.execute(
                        sql: """
                            UPDATE \(table.quotedDatabaseIdentifier) SET \(column.quotedDatabaseIdentifier) = ?
                            WHERE rowid = (SELECT rowid FROM \(table.quotedDatabaseIdentifier) ORDER BY random() LIMIT 1)
                            """,
                        arguments: [value]
                    )
                case let .sql(sql, _):
                    try Self.dropConstraints(of: nil, in: db)
                    try db.execute(sql: sql)
                default:
                    break
                }
            }
        } catch is DatabaseError {
            return false
        }
        return true
    }

    /// Edits the stored schema so that NOT NULL and STRICT no longer stop a tampering update:
    /// what a hostile file can hold whatever its schema claims. (A CHECK that still refuses makes the
    /// mutation not apply.)
    private static func dropConstraints(of table: String?, in db: Database) throws {
        try db.execute(sql: "PRAGMA writable_schema = ON")
        try db.execute(sql: "UPDATE sqlite_schema SET sql = replace(replace(sql, 'NOT NULL', ''), ') STRICT', ')') WHERE type = 'table' AND (?1 IS NULL OR name = ?1)", arguments: [table])
        try db.execute(sql: "PRAGMA writable_schema = RESET")
    }
}
