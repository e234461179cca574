import Foundation
import RewindLog
@testable import RewindPostgres
import Testing

/// Opening a store on a real server: the schema, concurrent openers, and every way opening
/// fails, each with an error that says what to do and never shows the password.
@Suite("PostgreSQL store opening", .enabled(if: PostgresTestServer.enabled))
struct PostgresLogOpeningTests {
    @Test("opening for writing creates the schema once; opening again changes nothing")
    func createsSchema() async throws {
        try await PostgresTestServer.withDatabase { location in
            let store = try await PostgresLog.open(location)
            #expect(try await store.schemaVersion() == PostgresLog.latestSchemaVersion)
            await store.close()
            let again = try await PostgresLog.open(location)
            #expect(try await again.schemaVersion() == PostgresLog.latestSchemaVersion)
            await again.close()
            let versions = try await PostgresTestServer.strings(location, "SELECT version::text FROM rewind.schema_migrations ORDER BY version")
            #expect(versions == (1...PostgresLog.latestSchemaVersion).map(String.init))
            let partitions = try await PostgresTestServer.strings(location, """
                SELECT c.relname::text FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                WHERE i.inhparent = 'rewind.events'::regclass ORDER BY 1
                """)
            #expect(partitions.count == 16, "events are hash-partitioned by session")
            let readOnly = try await PostgresLog.open(location, mode: .readOnly)
            #expect(try await readOnly.schemaVersion() == PostgresLog.latestSchemaVersion)
            await readOnly.close()
        }
    }

    @Test("eight processes opening a new store at once: one migrates, every one opens, each migration is applied once")
    func concurrentOpeners() async throws {
        try await PostgresTestServer.withDatabase { location in
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        // Waiting up to 10 minutes for the migration, not the default 2: the
                        // migrating opener's statements resume on the Swift pool, which the
                        // parallel suite's blocking tests hold for minutes at a time; two CI
                        // runs saw its migration outlast the 2-minute wait of the others.
                        let store = try await PostgresLog.open(
                            location, mode: .readWrite, connectTimeout: .seconds(60), queryTimeout: PostgresLog.defaultQueryTimeout,
                            migrationLockWait: .seconds(600), role: nil
                        )
                        defer { Task { await store.close() } }
                        return try await store.schemaVersion()
                    }
                }
                for try await version in group { #expect(version == PostgresLog.latestSchemaVersion) }
            }
            let applied = try await PostgresTestServer.strings(location, "SELECT count(*)::text FROM rewind.schema_migrations")
            #expect(applied == ["\(PostgresLog.latestSchemaVersion)"])
        }
    }

    @Test("read-only: a database without a store is refused, and nothing is created")
    func readOnlyWithoutStore() async throws {
        try await PostgresTestServer.withDatabase { location in
            let error = await #expect(throws: EventLogError.self) { try await PostgresLog.open(location, mode: .readOnly) }
            #expect(error.map(String.init(describing:))?.contains(": there is no Rewind log store in this database (nothing was pushed or recorded into it yet)") == true, "\(String(describing: error))")
            let schemas = try await PostgresTestServer.strings(location, "SELECT nspname::text FROM pg_namespace WHERE nspname = 'rewind'")
            #expect(schemas.isEmpty)
        }
    }

    @Test("a store of a newer Rewind is refused, for reading and for writing, and left as it is")
    func newerStore() async throws {
        try await PostgresTestServer.withDatabase { location in
            await (try PostgresLog.open(location)).close()
            let newer = PostgresLog.latestSchemaVersion + 1
            try await PostgresTestServer.admin(location, "INSERT INTO rewind.schema_migrations (version, name) VALUES (\(newer), 'from_the_future')")
            for mode in [EventLog.Mode.readWrite, .readOnly] {
                let error = await #expect(throws: EventLogError.self) { try await PostgresLog.open(location, mode: mode) }
                #expect(error == .newerSchema(path: location.description, found: newer, supported: PostgresLog.latestSchemaVersion))
            }
        }
    }

    @Test("a `rewind` schema that a store did not make is refused, not migrated over")
    func foreignSchema() async throws {
        try await PostgresTestServer.withDatabase { location in
            try await PostgresTestServer.admin(location, "CREATE SCHEMA rewind; CREATE TABLE rewind.accounts (id int)")
            let error = await #expect(throws: EventLogError.self) { try await PostgresLog.open(location) }
            guard case .notARewindLog? = error else { Issue.record("expected notARewindLog, got \(String(describing: error))"); return }
            #expect(try await PostgresTestServer.strings(location, "SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'rewind'") == ["accounts"])
        }
    }

    @Test("wrong or missing credentials: the user is named, the password never")
    func credentials() async throws {
        var location = try PostgresTestServer.location()
        location.password = "hunter2-not-the-password"
        let wrong = await #expect(throws: EventLogError.self) { try await PostgresLog.open(location) }
        let text = wrong.map(String.init(describing:)) ?? ""
        #expect(text.contains("the server refused user '\(location.user)'"), "\(text)")
        #expect(!text.contains("hunter2"))
        location.password = nil
        let missing = await #expect(throws: EventLogError.self) { try await PostgresLog.open(location) }
        #expect(missing.map(String.init(describing:))?.contains("asks user '\(location.user)' for a password and none was given") == true, "\(String(describing: missing))")
    }

    @Test("a database that does not exist is named")
    func missingDatabase() async throws {
        var location = try PostgresTestServer.location()
        location.database = "no_such_database_here"
        let error = await #expect(throws: EventLogError.self) { try await PostgresLog.open(location) }
        #expect(error.map(String.init(describing:))?.contains("the database 'no_such_database_here' does not exist") == true, "\(String(describing: error))")
    }

    @Test("sslmode=require against a server that offers no TLS is refused, saying so")
    func tlsRequired() async throws {
        var location = try PostgresTestServer.location()
        location.tls = .require
        let error = await #expect(throws: EventLogError.self) { try await PostgresLog.open(location) }
        #expect(error.map(String.init(describing:))?.contains("offers no TLS, and sslmode=require requires it") == true, "\(String(describing: error))")
    }

    @Test("nothing listening: connection refused (said so, not left to time out)")
    func refused() async throws {
        var location = try PostgresTestServer.location()
        location.port = try freePort()
        let error = await #expect(throws: EventLogError.self) { try await PostgresLog.open(location) }
        #expect(error.map(String.init(describing:))?.contains("connection refused") == true, "\(String(describing: error))")
    }

    @Test("a store released without close() closes its connection: its backend goes, the process goes on")
    func releasedUnclosed() async throws {
        try await PostgresTestServer.withDatabase { location in
            var backends: [Int32] = []
            // A writer and a reader, each dropped as an error path drops it.
            for mode in [EventLog.Mode.readWrite, .readOnly] {
                let store = try await PostgresLog.open(location, mode: mode)
                backends.append(try await store.single(Int32.self, "SELECT pg_backend_pid()"))
            }
            let list = backends.map(String.init).joined(separator: ", ")
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(30)
            var left = backends.count
            while clock.now < deadline {
                left = Int(try await PostgresTestServer.strings(location, "SELECT count(*)::text FROM pg_stat_activity WHERE pid IN (\(list))").first ?? "") ?? -1
                if left == 0 { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(left == 0, "backends \(list) still connected")
        }
    }

    /// A loopback port nothing listens on (bound, read, released).
    private func freePort() throws -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
