import Foundation
import RewindLog
#if PostgreSQL
import RewindPostgres
#endif

/// Opens a collector's store as the command line names it: a `postgres://` URL (in a tool built
/// with PostgreSQL), or a SQLite file.
enum CollectorStores {
    /// Whether `location` names a PostgreSQL store rather than a file.
    static func isURL(_ location: String) -> Bool {
        location.hasPrefix("postgres://") || location.hasPrefix("postgresql://")
    }

    /// The store at `location`; a missing SQLite file is created when `create` is true.
    static func open(_ location: String, create: Bool = false) async throws -> any CollectorStore {
        if isURL(location) {
            #if PostgreSQL
            do { return try await PostgresReportStore.open(try StoreURL.parse(location)) } catch let error as EventLogError { throw InputError("\(error)") }
            #else
            throw InputError("\(location): this tool was built without PostgreSQL (the PostgreSQL trait)")
            #endif
        }
        do { return try ReportStore(path: location, create: create) } catch { throw InputError("\(error)") }
    }
}
