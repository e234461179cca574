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

    /// Report `id`'s bytes in the store at `location`, as uploaded (`nil`: no such report), and
    /// the store's name (no password).
    static func fetch(_ location: String, id: Int64) async throws -> (bytes: Data?, store: String) {
        let reports = try await open(location)
        let bytes: Data?
        do { bytes = try await reports.bytes(id: id) } catch {
            // postgres-nio requires its connections closed before they go.
            await reports.close()
            throw InputError("\(error)")
        }
        await reports.close()
        return (bytes, reports.name)
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
