public import Foundation
import GRDB
public import RewindLogCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A collector's store in one SQLite file (`rewind collect --store reports.sqlite`): the
/// embedded default for a small team. See `CollectorStore` (RewindLogCore) for what every store promises.
///
/// - Several collectors on one machine may share the file (WAL; each write one transaction,
///   each commit synced with `synchronous = FULL`).
/// - Its own kind of file (`PRAGMA application_id` 'RWRC', migrations in `Migrations/reports/`):
///   a log is not a store, and a store is not a log; each refuses the other with a clear error.
public final class ReportStore: CollectorStore {
    /// 'RWRC', in the header by `PRAGMA application_id`.
    package static let applicationID: Int32 = 0x5257_5243

    /// The file.
    public let path: String
    public var name: String { path }
    private let pool: DatabasePool

    /// Opens the store at `path`, creating it (owner-only) when `create` is true and it is missing.
    ///
    /// - Throws: `EventLogError.fileNotFound` for a missing file not to be created,
    ///   `.notARewindLog` for a SQLite file of another kind (a log among them),
    ///   `.newerSchema` for a store a newer Rewind wrote.
    public init(path: String, create: Bool = false) throws(EventLogError) {
        self.path = path
        let exists = FileManager.default.fileExists(atPath: path)
        guard exists || create else { throw .fileNotFound(path: path) }
        if !exists {
            // Owner-only from the first byte; SQLite gives -wal and -shm the same mode.
            let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
            if descriptor >= 0 {
                fchmod(descriptor, 0o600)
                _ = Self.closeDescriptor(descriptor)
            }
        }
        if exists, try LogFileHeader.read(path: path) != nil, let id = Self.kind(at: path), id != 0, id != Self.applicationID {
            let kind = id == LogFileHeader.applicationID
                ? "it is a Rewind log (read it with the log commands; a collector's store is what `rewind collect --store` writes)"
                : "a SQLite database of another kind (application_id \(String(format: "0x%08X", id)))"
            throw .failed(path: path, reason: "not a collector's report store: \(kind)")
        }
        pool = try mappingErrors(path: path) {
            var configuration = Configuration()
            configuration.label = "ReportStore"
            configuration.busyMode = .timeout(10)
            configuration.prepareDatabase { db in
                // A stored report is acknowledged to the uploader, which then deletes its copy:
                // the commit must survive a power cut, so every commit syncs the WAL.
                try db.execute(sql: "PRAGMA synchronous = FULL")
            }
            let pool = try DatabasePool(path: path, configuration: configuration)
            try pool.writeWithoutTransaction { db in
                let found = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
                let known = ReportStoreSchema.embedded.last?.version ?? 0
                guard found <= known else { throw EventLogError.newerSchema(path: path, found: found, supported: known) }
                try SchemaMigrator.migrate(db, path: path, migrations: ReportStoreSchema.embedded, applicationID: Self.applicationID)
            }
            return pool
        }
    }

    /// Whether the file at `path` is a collector's store.
    public static func isStore(at path: String) -> Bool {
        kind(at: path) == applicationID
    }

    /// The kind of SQLite file at `path` (its `application_id`): from its header, or — while the
    /// header on disk is still a new file's (its first pages in the write-ahead log, not yet
    /// checkpointed) — asked of SQLite, read-only. `nil` for what is not SQLite; 0 for a file
    /// no kind has claimed.
    static func kind(at path: String) -> Int32? {
        guard let header = try? LogFileHeader.read(path: path), let id = header.applicationID else { return nil }
        guard id == 0 else { return id }
        var configuration = Configuration()
        configuration.readonly = true
        guard let queue = try? DatabaseQueue(path: path, configuration: configuration) else { return id }
        defer { try? queue.close() }
        return (try? queue.read { db in try Int32.fetchOne(db, sql: "PRAGMA application_id") }) ?? id
    }

    // MARK: - Receiving

    public func receive(
        _ bytes: Data, header: ReportHeader, idempotencyKey: String, install: String, token: String, receivedAt: Date = Date()
    ) async throws(EventLogError) -> ReportReceipt {
        let digest = ReportDigest.hex(of: bytes)
        let headerText = String(decoding: (try? Self.encoder.encode(header)) ?? Data(), as: UTF8.self)
        return try await writing { db in
            if let existing = try Row.fetchOne(db, sql: "SELECT id, digest FROM reports WHERE idempotency_key = ?", arguments: [idempotencyKey]) {
                let id: Int64 = existing["id"], stored: String = existing["digest"]
                return stored == digest ? .duplicate(id: id) : .conflict
            }
            // The unique constraint, not the lookup above, is what keeps a key to one row: two
            // collectors racing here both pass the lookup, and one insert fails. Its report is
            // then the other's, and the answer is the lookup's.
            do {
                try db.execute(
                    sql: """
                        INSERT INTO reports (idempotency_key, digest, app_id, app_version, install, token, header, created_at, received_at, size, bytes)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        idempotencyKey, digest, header.app.id, header.app.version, install, token, headerText, header.createdAt,
                        receivedAt.timeIntervalSince1970, bytes.count, bytes,
                    ]
                )
                return .stored(id: db.lastInsertedRowID)
            } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
                let stored = try String.fetchOne(db, sql: "SELECT digest FROM reports WHERE idempotency_key = ?", arguments: [idempotencyKey])
                let id = try Int64.fetchOne(db, sql: "SELECT id FROM reports WHERE idempotency_key = ?", arguments: [idempotencyKey]) ?? 0
                return stored == digest ? .duplicate(id: id) : .conflict
            }
        }
    }

    public func stored(idempotencyKey: String) async throws(EventLogError) -> (id: Int64, digest: String)? {
        try await reading { db in
            try Row.fetchOne(db, sql: "SELECT id, digest FROM reports WHERE idempotency_key = ?", arguments: [idempotencyKey]).map { ($0["id"], $0["digest"]) }
        }
    }

    public func usage(app: String) async throws(EventLogError) -> (count: Int, bytes: Int) {
        try await reading { db in
            let row = try Row.fetchOne(db, sql: "SELECT count(*) AS n, coalesce(sum(size), 0) AS bytes FROM reports WHERE app_id = ?", arguments: [app])
            return (row?["n"] ?? 0, row?["bytes"] ?? 0)
        }
    }

    // MARK: - The team's side

    public func reports(app: String? = nil, limit: Int = 1000, beforeID: Int64? = nil) async throws(EventLogError) -> [CollectedReport] {
        try await reading { db in
            var conditions: [String] = [], arguments: StatementArguments = []
            if let app { conditions.append("app_id = ?"); arguments += [app] }
            if let beforeID { conditions.append("id < ?"); arguments += [beforeID] }
            let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
            arguments += [max(0, limit)]
            return try Row.fetchAll(
                db, sql: "SELECT id, header, install, token, received_at, size, digest FROM reports \(filter) ORDER BY id DESC LIMIT ?",
                arguments: arguments
            ).compactMap { row in
                // Written by `receive` from a checked header; a row that no longer decodes is
                // left out rather than failing the listing.
                let text: String = row["header"]
                guard let header = try? JSONDecoder().decode(ReportHeader.self, from: Data(text.utf8)) else { return nil }
                return CollectedReport(id: row["id"], header: header, install: row["install"], token: row["token"], receivedAt: row["received_at"], size: row["size"], digest: row["digest"])
            }
        }
    }

    public func apps() async throws(EventLogError) -> [String] {
        try await reading { db in try String.fetchAll(db, sql: "SELECT DISTINCT app_id FROM reports ORDER BY app_id") }
    }

    public func bytes(id: Int64) async throws(EventLogError) -> Data? {
        try await reading { db in try Data.fetchOne(db, sql: "SELECT bytes FROM reports WHERE id = ?", arguments: [id]) }
    }

    @discardableResult
    public func delete(id: Int64) async throws(EventLogError) -> Bool {
        try await writing { db in
            try db.execute(sql: "DELETE FROM reports WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    @discardableResult
    public func erase(install: String) async throws(EventLogError) -> Int {
        try await writing { db in
            try db.execute(sql: "DELETE FROM reports WHERE install = ?", arguments: [install])
            return db.changesCount
        }
    }

    @discardableResult
    public func applyRetention(app: String, olderThan: Date?, maxBytes: Int?) async throws(EventLogError) -> Int {
        try await writing { db in
            var deleted = 0
            if let olderThan {
                try db.execute(sql: "DELETE FROM reports WHERE app_id = ? AND received_at < ?", arguments: [app, olderThan.timeIntervalSince1970])
                deleted += db.changesCount
            }
            if let maxBytes {
                var total = try Int.fetchOne(db, sql: "SELECT coalesce(sum(size), 0) FROM reports WHERE app_id = ?", arguments: [app]) ?? 0
                let oldest = try Row.fetchCursor(db, sql: "SELECT id, size FROM reports WHERE app_id = ? ORDER BY id", arguments: [app])
                var doomed: [Int64] = []
                while total > maxBytes, let row = try oldest.next() {
                    doomed.append(row["id"])
                    total -= row["size"] as Int
                }
                for id in doomed { try db.execute(sql: "DELETE FROM reports WHERE id = ?", arguments: [id]) }
                deleted += doomed.count
            }
            return deleted
        }
    }

    public func revoke(token: String, at time: Date = Date()) async throws(EventLogError) {
        try await writing { db in
            try db.execute(sql: "INSERT OR IGNORE INTO revoked_tokens (name, revoked_at) VALUES (?, ?)", arguments: [token, time.timeIntervalSince1970])
        }
    }

    public func revokedTokens() async throws(EventLogError) -> Set<String> {
        try await reading { db in Set(try String.fetchAll(db, sql: "SELECT name FROM revoked_tokens")) }
    }

    public func setting(_ name: String) async throws(EventLogError) -> String? {
        try await reading { db in try String.fetchOne(db, sql: "SELECT value FROM settings WHERE name = ?", arguments: [name]) }
    }

    public func setSetting(_ name: String, to value: String?) async throws(EventLogError) {
        try await writing { db in
            if let value {
                try db.execute(sql: "INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value", arguments: [name, value])
            } else {
                try db.execute(sql: "DELETE FROM settings WHERE name = ?", arguments: [name])
            }
        }
    }

    public func close() async {
        try? pool.close()
    }

    // MARK: - Inside

    /// The C library's `close`, which the store's own ``close()`` hides inside the type.
    private static func closeDescriptor(_ descriptor: Int32) -> Int32 {
        #if canImport(Glibc)
        Glibc.close(descriptor)
        #else
        Darwin.close(descriptor)
        #endif
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    /// One write transaction, off the caller's thread (GRDB's writer queue): a collector's
    /// request task waits without holding one of the few cooperative threads.
    private func writing<T: Sendable>(_ body: @Sendable @escaping (Database) throws -> T) async throws(EventLogError) -> T {
        do {
            return try await pool.write(body)
        } catch {
            throw EventLogError.wrapping(error, path: path)
        }
    }

    private func reading<T: Sendable>(_ body: @Sendable @escaping (Database) throws -> T) async throws(EventLogError) -> T {
        do {
            return try await pool.read(body)
        } catch {
            throw EventLogError.wrapping(error, path: path)
        }
    }
}
