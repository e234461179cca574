/// A collector's store's schema (``ReportStore``): `Migrations/reports/*.sql`, embedded as
/// `embedded` by `Tools/embed-migrations.sh`, applied by the log's own migrator.
enum ReportStoreSchema {
    typealias Migration = SchemaMigration
}
