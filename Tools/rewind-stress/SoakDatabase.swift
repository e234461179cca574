#if PostgreSQL
import Foundation
import Logging
import PostgresNIO
import RewindPostgres
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The database a soak runs in: made fresh on the server, dropped after.
struct SoakDatabase {
    let server: PostgresLocation
    let location: PostgresLocation

    static func create(on server: PostgresLocation) async throws -> SoakDatabase {
        var location = server
        location.database = "rewind_soak_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        location.install = nil
        location.log = nil
        _ = try await SoakControl.run("CREATE DATABASE \(location.database)", at: server)
        return SoakDatabase(server: server, location: location)
    }

    /// The server processes of this database's connections named `name`.
    func backends(named name: String) async throws -> [pid_t] {
        try await SoakControl.run(
            "SELECT pid::text FROM pg_stat_activity WHERE datname = current_database() AND application_name = '\(name)'", at: location
        ).compactMap { pid_t($0) }
    }

    /// Ends every other connection to this database; how many.
    func terminateOthers() async throws -> Int {
        try await SoakControl.run(
            "SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()", at: location
        ).count
    }

    func drop() async {
        _ = try? await SoakControl.run("DROP DATABASE IF EXISTS \(location.database) WITH (FORCE)", at: server)
    }
}

/// Plain SQL on a connection of its own, outside the store's API: what an administrator runs
/// (making databases, finding and ending backends). A new connection each time, since the
/// faults it helps make cut connections.
enum SoakControl {
    static let logger = Logger(label: "rewind-stress", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The first column of every row `sql` returns, as text.
    static func run(_ sql: String, at location: PostgresLocation) async throws -> [String] {
        let connection = try await PostgresConnection.connect(
            configuration: .init(
                host: location.host, port: location.port, username: location.user, password: location.password, database: location.database, tls: .disable
            ),
            id: 9, logger: logger
        )
        do {
            let rows = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).collect()
            try? await connection.close()
            return try rows.map { try $0.decode(String?.self) ?? "" }
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
#endif
