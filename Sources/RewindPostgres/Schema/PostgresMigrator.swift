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
    static func version(_ store: PostgresLog) async throws -> Int {
        let rows = try await store.rows("""
            SELECT
                (SELECT count(*) FROM information_schema.schemata WHERE schema_name = 'rewind'),
                (SELECT count(*) FROM information_schema.tables WHERE table_schema = 'rewind'),
                to_regclass('rewind.schema_migrations') IS NOT NULL
            """)
        var found = (schema: 0, tables: 0, migrations: false)
        for row in rows { found = try row.decode((Int, Int, Bool).self) }
        guard found.schema > 0 else { return 0 }
        guard found.migrations else {
            if found.tables == 0 { return 0 }
            throw EventLogError.notARewindLog(path: store.location.description, applicationID: 0)
        }
        return try await store.single(Int.self, "SELECT coalesce(max(version), 0) FROM rewind.schema_migrations")
    }

    /// How long each statement of a migration may take, in minutes.
    static let migrationTimeoutMinutes = 30

    /// How long opening for writing waits for another session's migration by default.
    static let defaultLockWait: Duration = .seconds(120)

    /// Migrates the store's database to the latest version, waiting at most `lockWait` for
    /// another session that holds the migration lock.
    ///
    /// - Throws: `EventLogError.newerSchema(path:found:supported:)` for a store of a newer
    ///   Rewind; a migration's error otherwise (nothing of that migration is applied).
    static func migrate(_ store: PostgresLog, lockWait: Duration) async throws {
        // Polled rather than waited for in one statement: a migration may legitimately hold the
        // lock for longer than one statement may take, and a wait in one statement would end at
        // the store's query timeout.
        let clock = ContinuousClock()
        let start = clock.now
        while try await !store.single(Bool.self, "SELECT pg_try_advisory_lock(\(lockKey))") {
            guard clock.now - start < lockWait else {
                throw EventLogError.failed(
                    path: store.location.description,
                    reason: "another session held the store's migration lock for longer than \(lockWait); is a migration stuck? (pg_locks, advisory objid \(lockKey))"
                )
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        do {
            try await migrateLocked(store)
        } catch {
            _ = try? await store.rows("SELECT pg_advisory_unlock(\(lockKey))")
            throw error
        }
        _ = try await store.rows("SELECT pg_advisory_unlock(\(lockKey))")
    }

    private static func migrateLocked(_ store: PostgresLog) async throws {
        let current = try await version(store)
        guard current <= latestVersion else {
            throw EventLogError.newerSchema(path: store.location.description, found: current, supported: latestVersion)
        }
        guard current < latestVersion else { return }
        try await store.run("""
            CREATE SCHEMA IF NOT EXISTS rewind;
            CREATE TABLE IF NOT EXISTS rewind.schema_migrations (
                version integer PRIMARY KEY,
                name text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            );
            """)
        for migration in embedded where migration.version > current {
            do {
                try await store.run("BEGIN")
                // A migration may rewrite a large store: its statements get far longer than
                // the store's query timeout, here and at the server, for this transaction only.
                try await store.run("SET LOCAL statement_timeout = '\(migrationTimeoutMinutes)min'")
                try await store.run(migration.sql, timeout: .seconds(migrationTimeoutMinutes * 60))
                _ = try await store.rows("INSERT INTO rewind.schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))")
                try await store.run("COMMIT")
            } catch {
                try? await store.run("ROLLBACK")
                throw error
            }
        }
    }
}
