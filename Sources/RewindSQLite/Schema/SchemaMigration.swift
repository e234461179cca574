import RewindLogCore
/// One numbered SQL file of a store's schema (`Migrations/NNNN_name.sql` for the SQLite log,
/// `Migrations/postgres/…` for PostgreSQL), as `Tools/embed-migrations.sh` embeds it.
package struct SchemaMigration: Sendable {
    package var version: Int
    package var name: String
    package var sql: String

    package init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }
}
