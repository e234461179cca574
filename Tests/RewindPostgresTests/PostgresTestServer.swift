import Foundation
import Logging
import PostgresNIO
@testable import RewindPostgres
import Testing

/// The PostgreSQL server the tests use: `REWIND_TEST_POSTGRES_URL`, which `Tools/dev.sh test`
/// sets to a throwaway cluster it starts (Tools/postgres.sh), or to your own server (the role
/// needs CREATEDB: every test gets a database of its own).
///
/// Without it the server tests are skipped on a developer's machine, and fail under `CI=true`:
/// CI must have run them.
enum PostgresTestServer {
    static let url = ProcessInfo.processInfo.environment["REWIND_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    static let required = ProcessInfo.processInfo.environment["CI"] == "true"
    /// Whether the server tests run: with a server, or under CI (where they then fail).
    static var enabled: Bool { url != nil || required }

    /// The server's own location (its default database).
    static func location() throws -> PostgresLocation {
        guard let url else {
            throw Unavailable(description: "REWIND_TEST_POSTGRES_URL is not set: run the tests with Tools/dev.sh test, which starts a throwaway server")
        }
        passwordExported
        return try PostgresLocation(parsing: url, environment: [:])
    }

    /// The tools these tests run take the server's password as users should give it: from the
    /// environment (`PGPASSWORD`), not from a URL on the command line. Set once, before any test
    /// starts a tool with a store (a static's initialiser runs once).
    private static let passwordExported: Void = {
        if let url, let password = try? PostgresLocation(parsing: url, environment: [:]).password {
            setenv("PGPASSWORD", password, 1)
        }
    }()

    /// A new, empty database on the server, dropped when `body` returns.
    static func withDatabase<T>(_ body: (PostgresLocation) async throws -> T) async throws -> T {
        let server = try location()
        var location = server
        location.database = "rewind_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await admin(server, "CREATE DATABASE \(location.database)")
        do {
            let result = try await body(location)
            try await admin(server, "DROP DATABASE \(location.database) WITH (FORCE)")
            return result
        } catch {
            try? await admin(server, "DROP DATABASE \(location.database) WITH (FORCE)")
            throw error
        }
    }

    /// Runs `sql` on `location`'s database, outside any store.
    static func admin(_ location: PostgresLocation, _ sql: String) async throws {
        try await withConnection(location, id: 99, doing: sql) { connection in
            for statement in SQLScript.statements(sql) {
                _ = try await connection.query(PostgresQuery(unsafeSQL: statement), logger: PostgresLog.logger)
            }
        }
    }

    /// The first column of `sql`'s rows as text, on `location`'s database.
    static func strings(_ location: PostgresLocation, _ sql: String) async throws -> [String] {
        try await withConnection(location, id: 98, doing: sql) { connection in
            var values: [String] = []
            for try await value in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: PostgresLog.logger).decode(String.self) {
                values.append(value)
            }
            return values
        }
    }

    /// `body` on a connection of its own to `location`'s database, closed after it. Its errors
    /// say what went wrong: postgres-nio's `PSQLError` describes itself generically, to keep
    /// data out of an app's logs, and a test's failure needs the details (``Failed``).
    private static func withConnection<T>(
        _ location: PostgresLocation, id: Int, doing sql: String, _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        do {
            var configuration = PostgresConnection.Configuration(
                host: location.host, port: location.port, username: location.user, password: location.password, database: location.database, tls: .disable
            )
            // A test's own look at the store is not what is under test: it waits out a loaded
            // machine's stall (CI once saw a loopback connect pass postgres-nio's 10 s default).
            configuration.options.connectTimeout = .seconds(60)
            let connection = try await PostgresConnection.connect(configuration: configuration, id: id, logger: PostgresLog.logger)
            defer { Task { try? await connection.close() } }
            return try await body(connection)
        } catch let error as PSQLError {
            throw Failed(description: "\(sql.prefix(80)) on \(location.host):\(location.port): \(String(reflecting: error))")
        }
    }

    struct Unavailable: Error, CustomStringConvertible {
        var description: String
    }

    /// A statement of ``admin(_:_:)`` or ``strings(_:_:)`` that failed, with postgres-nio's details.
    struct Failed: Error, CustomStringConvertible {
        var description: String
    }
}
