import Logging
import PostgresNIO
import RewindLog

/// Brings a database's `rewind` schema to the latest version: the migrations in
/// `Migrations/postgres/` (embedded in the binary), applied in order, each in one transaction
/// with its row in `rewind.schema_migrations`.
///
/// Many processes may open the same store at once (a fleet's pushers, a service's replicas):
/// the migrator holds a session-level advisory lock while it looks and migrates, so exactly one
/// applies each migration and the others wait, then find nothing to do.
enum PostgresMigrator {
    typealias Migration = SchemaMigration

    static var latestVersion: Int { embedded.last?.version ?? 0 }

    /// The advisory lock's key: "RWND" as a number, so other users of advisory locks can avoid it.
    static let lockKey: Int64 = 0x5257_4E44

    /// The schema version of `connection`'s database: 0 when it has no Rewind store.
    ///
    /// - Throws: `EventLogError.notARewindLog(path:applicationID:)` when the database has a
    ///   `rewind` schema that a Rewind store did not make (no `schema_migrations` in it, but
    ///   other tables).
    static func version(_ connection: PostgresConnection, location: PostgresLocation, logger: Logger) async throws -> Int {
        let rows = try await connection.query("""
            SELECT
                (SELECT count(*) FROM information_schema.schemata WHERE schema_name = 'rewind'),
                (SELECT count(*) FROM information_schema.tables WHERE table_schema = 'rewind'),
                to_regclass('rewind.schema_migrations') IS NOT NULL
            """, logger: logger)
        var found = (schema: 0, tables: 0, migrations: false)
        for try await row in rows.decode((Int, Int, Bool).self) { found = (row.0, row.1, row.2) }
        guard found.schema > 0 else { return 0 }
        guard found.migrations else {
            if found.tables == 0 { return 0 }
            throw EventLogError.notARewindLog(path: location.description, applicationID: 0)
        }
        var version = 0
        for try await value in try await connection.query("SELECT coalesce(max(version), 0) FROM rewind.schema_migrations", logger: logger).decode(Int.self) {
            version = value
        }
        return version
    }

    /// Migrates `connection`'s database to the latest version.
    ///
    /// - Throws: `EventLogError.newerSchema(path:found:supported:)` for a store of a newer
    ///   Rewind; a migration's error otherwise (nothing of that migration is applied).
    static func migrate(_ connection: PostgresConnection, location: PostgresLocation, logger: Logger) async throws {
        _ = try await connection.query("SELECT pg_advisory_lock(\(lockKey))", logger: logger)
        do {
            try await migrateLocked(connection, location: location, logger: logger)
        } catch {
            _ = try? await connection.query("SELECT pg_advisory_unlock(\(lockKey))", logger: logger)
            throw error
        }
        _ = try await connection.query("SELECT pg_advisory_unlock(\(lockKey))", logger: logger)
    }

    private static func migrateLocked(_ connection: PostgresConnection, location: PostgresLocation, logger: Logger) async throws {
        let current = try await version(connection, location: location, logger: logger)
        guard current <= latestVersion else {
            throw EventLogError.newerSchema(path: location.description, found: current, supported: latestVersion)
        }
        guard current < latestVersion else { return }
        try await run(connection, """
            CREATE SCHEMA IF NOT EXISTS rewind;
            CREATE TABLE IF NOT EXISTS rewind.schema_migrations (
                version integer PRIMARY KEY,
                name text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            );
            """, logger: logger)
        for migration in embedded where migration.version > current {
            do {
                try await run(connection, "BEGIN", logger: logger)
                try await run(connection, migration.sql, logger: logger)
                _ = try await connection.query(
                    "INSERT INTO rewind.schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))", logger: logger
                )
                try await run(connection, "COMMIT", logger: logger)
            } catch {
                try? await run(connection, "ROLLBACK", logger: logger)
                throw error
            }
        }
    }

    /// Runs each statement of `script` in turn.
    static func run(_ connection: PostgresConnection, _ script: String, logger: Logger) async throws {
        for statement in SQLScript.statements(script) {
            _ = try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
        }
    }
}
