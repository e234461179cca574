import Foundation
import GRDB
import RewindLogCore

/// Applies the embedded `Migrations/*.sql` files, in order, each in its own transaction.
///
/// A log records how far it has been migrated in `PRAGMA user_version` and the
/// `schema_migrations` table. Migrations only go forward; a log whose version is newer than the
/// newest migration this build knows is refused before anything is written.
struct SchemaMigrator {
    typealias Migration = SchemaMigration

    /// The schema version this build writes.
    static var latestVersion: Int { embedded.last?.version ?? 0 }

    /// Brings `db` up to ``latestVersion``. Each migration runs in an immediate transaction that
    /// re-reads the version first, so two processes opening a new log at once do not collide.
    ///
    /// Foreign keys are off while migrations run (SQLite's procedure for rebuilding a table
    /// others refer to, as 0012 rebuilds `sessions`), and checked before each one commits: a
    /// migration that left a row naming a missing one rolls back. The check reads every row of
    /// every table (4 s on a 1 GB log), so it is skipped after a migration that changed no row
    /// and no table (as 0013 changes none): that one cannot have broken a reference.
    /// Call outside a transaction. `migrations` is for tests; a log is migrated by `embedded`.
    /// `applicationID` is the file's kind, written with each migration: a log's, or a
    /// collector's store's (``ReportStore``), which has migrations of its own.
    static func migrate(_ db: Database, path: String, migrations: [Migration] = embedded, applicationID: Int32 = LogFileHeader.applicationID) throws {
        let current = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
        guard current < (migrations.last?.version ?? 0) else { return }
        let enforced = try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") ?? false
        if enforced { try db.execute(sql: "PRAGMA foreign_keys = OFF") }
        defer { if enforced { try? db.execute(sql: "PRAGMA foreign_keys = ON") } }
        for migration in migrations {
            try db.inTransaction(.immediate) {
                let current = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
                guard current < migration.version else { return .commit }
                guard current == migration.version - 1 else {
                    throw EventLogError.corrupt(path: path, detail: "schema version \(current) cannot be followed by migration \(migration.name)")
                }
                let changes = db.totalChangesCount
                let schema = try Int.fetchOne(db, sql: "PRAGMA schema_version")
                try db.execute(sql: migration.sql)
                let schemaAfter = try Int.fetchOne(db, sql: "PRAGMA schema_version")
                let changed = db.totalChangesCount != changes || schemaAfter != schema
                if changed, let broken = try Row.fetchOne(db, sql: "PRAGMA foreign_key_check") {
                    let table: String = (try? broken.required(0, "foreign_key_check.table")) ?? "a table"
                    throw EventLogError.corrupt(path: path, detail: "migration \(migration.name) leaves a row of \(table) naming a missing row")
                }
                try db.execute(sql: "PRAGMA application_id = \(applicationID)")
                try db.execute(sql: "PRAGMA user_version = \(migration.version)")
                try db.execute(
                    sql: "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                    arguments: [migration.version, migration.name, Date().timeIntervalSince1970]
                )
                return .commit
            }
        }
    }
}
