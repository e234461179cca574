public import Foundation
import NIOCore
import PostgresNIO
public import RewindLog
import Synchronization

/// A collector's store in PostgreSQL (`rewind collect --store postgres://…`): for several
/// collectors behind a load balancer, or a team that runs PostgreSQL already. The tables are in
/// the `rewind` schema beside a log store's (`Migrations/postgres/0006_collected_reports.sql`).
/// See `CollectorStore` (RewindLogCore) for what every store promises.
///
/// It keeps a few connections (``connections``), each used by many requests at once (postgres-nio
/// queues them). A connection the server closed — restarted, a backend stopped — is replaced
/// the next time it is picked, and the statement that met it is run again once on the new one:
/// every statement here is safe to repeat (an insert by idempotency key stores once).
public final class PostgresReportStore: CollectorStore {
    /// Where the store is.
    public let location: PostgresLocation
    public var name: String { location.description }
    /// How many connections it keeps.
    public let connections: Int
    private let pool: Mutex<[PostgresLog]>
    private let next = Atomic<Int>(0)

    private init(location: PostgresLocation, opened: [PostgresLog]) {
        self.location = location
        connections = opened.count
        pool = Mutex(opened)
    }

    /// Connects (and creates or migrates the `rewind` schema).
    ///
    /// - Parameters:
    ///   - location: The server, database and credentials.
    ///   - connections: How many connections to keep: 4 by default.
    /// - Throws: `EventLogError` when the server cannot be reached or holds a newer store.
    public static func open(_ location: PostgresLocation, connections: Int = 4) async throws(EventLogError) -> PostgresReportStore {
        var opened: [PostgresLog] = []
        for _ in 0..<max(1, connections) {
            do {
                opened.append(try await PostgresLog.open(location))
            } catch {
                for log in opened { await log.close() }
                throw error
            }
        }
        return PostgresReportStore(location: location, opened: opened)
    }

    /// Closes its connections.
    public func close() async {
        for log in pool.withLock({ $0 }) { await log.close() }
    }

    // MARK: - CollectorStore

    public func receive(
        _ bytes: Data, header: ReportHeader, idempotencyKey: String, install: String, token: String, receivedAt: Date = Date()
    ) async throws(EventLogError) -> ReportReceipt {
        let digest = ReportDigest.hex(of: bytes)
        let headerText = String(decoding: (try? Self.encoder.encode(header)) ?? Data(), as: UTF8.self)
        let received = receivedAt.timeIntervalSince1970, size = bytes.count, buffer = ByteBuffer(bytes: bytes)
        let inserted = try await rows("store a report") {
            """
            INSERT INTO rewind.reports (idempotency_key, digest, app_id, app_version, install, token, header, created_at, received_at, size, bytes)
            VALUES (\(idempotencyKey), \(digest), \(header.app.id), \(header.app.version), \(install), \(token), \(headerText), \(header.createdAt), \(received), \(size), \(buffer))
            ON CONFLICT (idempotency_key) DO NOTHING
            RETURNING id
            """
        }
        if let row = inserted.first { return .stored(id: try decoded("a stored report's id") { try row.decode(Int64.self) }) }
        // Taken before, by this collector or another: the same report, or a key reused.
        let existing = try await rows("look up a report's key") { "SELECT id, digest FROM rewind.reports WHERE idempotency_key = \(idempotencyKey)" }
        guard let row = existing.first else {
            // Deleted between the two statements: nothing of it is stored now, so store it.
            return try await receive(bytes, header: header, idempotencyKey: idempotencyKey, install: install, token: token, receivedAt: receivedAt)
        }
        let (id, stored) = try decoded("a stored report's key") { try row.decode((Int64, String).self) }
        return stored == digest ? .duplicate(id: id) : .conflict
    }

    public func stored(idempotencyKey: String) async throws(EventLogError) -> (id: Int64, digest: String)? {
        let found = try await rows("look up a report's key") { "SELECT id, digest FROM rewind.reports WHERE idempotency_key = \(idempotencyKey)" }
        guard let row = found.first else { return nil }
        let (id, digest) = try decoded("a stored report's key") { try row.decode((Int64, String).self) }
        return (id, digest)
    }

    public func usage(app: String) async throws(EventLogError) -> (count: Int, bytes: Int) {
        let found = try await rows("count an app's reports") { "SELECT count(*), coalesce(sum(size), 0)::bigint FROM rewind.reports WHERE app_id = \(app)" }
        guard let row = found.first else { return (0, 0) }
        let (count, bytes) = try decoded("an app's report count") { try row.decode((Int64, Int64).self) }
        return (Int(count), Int(bytes))
    }

    public func reports(app: String? = nil, limit: Int = 1000, beforeID: Int64? = nil) async throws(EventLogError) -> [CollectedReport] {
        let limit = max(0, limit), before = beforeID ?? .max
        let found = try await rows("list reports") {
            if let app {
                "SELECT id, header, install, token, received_at, size, digest FROM rewind.reports WHERE app_id = \(app) AND id < \(before) ORDER BY id DESC LIMIT \(limit)"
            } else {
                "SELECT id, header, install, token, received_at, size, digest FROM rewind.reports WHERE id < \(before) ORDER BY id DESC LIMIT \(limit)"
            }
        }
        return try decoded("a listed report") {
            try found.compactMap { row in
                let (id, text, install, token, received, size, digest) = try row.decode((Int64, String, String, String, Double, Int32, String).self)
                // Written by `receive` from a checked header; a row that no longer decodes is left out.
                guard let header = try? JSONDecoder().decode(ReportHeader.self, from: Data(text.utf8)) else { return nil }
                return CollectedReport(id: id, header: header, install: install, token: token, receivedAt: received, size: Int(size), digest: digest)
            }
        }
    }

    public func apps() async throws(EventLogError) -> [String] {
        let found = try await rows("list apps") { "SELECT DISTINCT app_id FROM rewind.reports ORDER BY app_id" }
        return try decoded("an app id") { try found.map { try $0.decode(String.self) } }
    }

    public func bytes(id: Int64) async throws(EventLogError) -> Data? {
        let found = try await rows("read a report") { "SELECT bytes FROM rewind.reports WHERE id = \(id)" }
        return try decoded("a report's bytes") { try found.first?.decode(Data.self) }
    }

    @discardableResult
    public func delete(id: Int64) async throws(EventLogError) -> Bool {
        try await !rows("delete a report") { "DELETE FROM rewind.reports WHERE id = \(id) RETURNING id" }.isEmpty
    }

    @discardableResult
    public func erase(install: String) async throws(EventLogError) -> Int {
        try await rows("erase an install's reports") { "DELETE FROM rewind.reports WHERE install = \(install) RETURNING id" }.count
    }

    @discardableResult
    public func applyRetention(app: String, olderThan: Date?, maxBytes: Int?) async throws(EventLogError) -> Int {
        var deleted = 0
        if let olderThan {
            let limit = olderThan.timeIntervalSince1970
            deleted += try await rows("apply retention by age") {
                "DELETE FROM rewind.reports WHERE app_id = \(app) AND received_at < \(limit) RETURNING id"
            }.count
        }
        if let maxBytes {
            // The newest reports whose sizes add up to at most maxBytes stay; the older go.
            let bound = Int64(maxBytes)
            deleted += try await rows("apply retention by size") {
                """
                DELETE FROM rewind.reports WHERE id IN (
                    SELECT id FROM (SELECT id, sum(size) OVER (ORDER BY id DESC) AS kept FROM rewind.reports WHERE app_id = \(app)) AS newest
                    WHERE kept > \(bound)
                ) RETURNING id
                """
            }.count
        }
        return deleted
    }

    public func revoke(token: String, at time: Date = Date()) async throws(EventLogError) {
        let revokedAt = time.timeIntervalSince1970
        _ = try await rows("revoke a token") { "INSERT INTO rewind.revoked_tokens (name, revoked_at) VALUES (\(token), \(revokedAt)) ON CONFLICT DO NOTHING" }
    }

    public func revokedTokens() async throws(EventLogError) -> Set<String> {
        let found = try await rows("read revoked tokens") { "SELECT name FROM rewind.revoked_tokens" }
        return try decoded("a revoked token") { Set(try found.map { try $0.decode(String.self) }) }
    }

    public func setting(_ name: String) async throws(EventLogError) -> String? {
        let found = try await rows("read a setting") { "SELECT value FROM rewind.collector_settings WHERE name = \(name)" }
        return try decoded("a setting") { try found.first?.decode(String.self) }
    }

    public func setSetting(_ name: String, to value: String?) async throws(EventLogError) {
        if let value {
            _ = try await rows("change a setting") {
                "INSERT INTO rewind.collector_settings (name, value) VALUES (\(name), \(value)) ON CONFLICT (name) DO UPDATE SET value = excluded.value"
            }
        } else {
            _ = try await rows("clear a setting") { "DELETE FROM rewind.collector_settings WHERE name = \(name)" }
        }
    }

    // MARK: - Inside

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    /// Runs a statement on the next connection (round robin). When that connection has closed,
    /// it is replaced and the statement runs once more on the new one.
    private func rows(_ what: String, _ query: () -> PostgresQuery) async throws(EventLogError) -> [PostgresRow] {
        let query = query()
        let index = next.add(1, ordering: .relaxed).oldValue % connections
        let log = pool.withLock { $0[index] }
        do {
            return try await log.rows(query)
        } catch {
            guard log.connection.isClosed else { throw PostgresFailure.describe(error, at: location, doing: what) }
        }
        let fresh = try await reconnect(index, replacing: log)
        do {
            return try await fresh.rows(query)
        } catch {
            throw PostgresFailure.describe(error, at: location, doing: what)
        }
    }

    /// A new connection in slot `index` in place of `closed` — or the one another call made.
    private func reconnect(_ index: Int, replacing closed: PostgresLog) async throws(EventLogError) -> PostgresLog {
        if let current = pool.withLock({ $0[index] === closed ? nil : $0[index] }) { return current }
        let fresh: PostgresLog
        do {
            fresh = try await PostgresLog.open(location)
        } catch {
            throw PostgresFailure.describe(error, at: location, doing: "connect again")
        }
        let kept = pool.withLock { pool -> PostgresLog in
            if pool[index] === closed { pool[index] = fresh }
            return pool[index]
        }
        if kept !== fresh { await fresh.close() }
        await closed.close()
        return kept
    }

    private func decoded<T>(_ what: String, _ body: () throws -> T) throws(EventLogError) -> T {
        do {
            return try body()
        } catch {
            throw EventLogError.corrupt(path: location.description, detail: "\(what) does not decode (\(error))")
        }
    }
}
