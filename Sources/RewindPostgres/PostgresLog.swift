import Foundation
import Logging
import NIOSSL
import PostgresNIO
import Synchronization
public import RewindLog

/// A Rewind log store in a PostgreSQL database: for a fleet's logs in one place, and for a
/// server-side service that keeps its history in the database it already runs.
///
/// ```swift
/// let store = try await PostgresLog.open(try PostgresLocation(parsing: "postgres://rewind@db.internal/fleet"))
/// print(try await store.schemaVersion())
/// await store.close()
/// ```
///
/// Opening connects once (one connection per store: a writer, or a reader), and, for writing,
/// brings the `rewind` schema up to date (the migrations in `Migrations/postgres/`).
/// Errors are `EventLogError`s naming the location without its password.
public final class PostgresLog: Sendable {
    /// Where the store is (its ``PostgresLocation/description`` names it in errors).
    public let location: PostgresLocation
    /// How it was opened.
    public let mode: EventLog.Mode
    /// How long any statement may go unanswered before it fails and the connection is closed
    /// (see ``open(_:mode:connectTimeout:queryTimeout:)``).
    public let queryTimeout: Duration
    let connection: PostgresConnection
    /// The statements running on `connection` (see ``InFlightQueries``).
    let inFlight = InFlightQueries()
    /// The server process serving `connection` (`pg_backend_pid()`, read when it opened; 0 if
    /// unknown): what a writer settling an ambiguous commit waits to see gone.
    let backendPID = Atomic<Int32>(0)
    /// A fault for tests: when set, the next transaction's connection is closed as soon as its
    /// `COMMIT` is sent (see ``AmbiguousCommit``), then this runs (a further fault: the server
    /// stopped before the writer can look).
    let losesCommit = Mutex<(@Sendable () async -> Void)?>(nil)
    static let logger = Logger(label: "RewindPostgres", factory: { _ in SwiftLogNoOpLogHandler() })

    private init(location: PostgresLocation, mode: EventLog.Mode, connection: PostgresConnection, queryTimeout: Duration) {
        self.location = location
        self.mode = mode
        self.connection = connection
        self.queryTimeout = queryTimeout
        // One callback for the connection's life, not one per query.
        let inFlight = inFlight
        let closed = EventLogError.failed(
            path: location.description,
            reason: "the server at \(location.host):\(location.port) closed the connection (restarted, stopped or unreachable); run it again to resume"
        )
        connection.closeFuture.whenComplete { _ in inFlight.close(with: closed) }
    }

    /// The default ``queryTimeout``: long enough for a fleet question over a large store,
    /// short enough that a stopped server frees its caller within a minute.
    public static let defaultQueryTimeout: Duration = .seconds(60)

    /// The newest store schema this build reads and writes.
    public static var latestSchemaVersion: Int { PostgresMigrator.latestVersion }

    /// Connects to the store at `location`.
    ///
    /// - Parameters:
    ///   - location: The server, database and credentials.
    ///   - mode: `.readWrite` creates or migrates the store's schema; `.readOnly` changes
    ///     nothing and needs a store of the latest schema.
    ///   - connectTimeout: How long to wait for the server to answer.
    ///   - queryTimeout: How long any statement may go unanswered. Past it, the statement fails
    ///     and the connection is closed (the next use of a recorder's or a reader's store
    ///     connects again). The server is told the same limit (`statement_timeout`,
    ///     `lock_timeout`), so a statement waiting on a lock ends there too; the client's
    ///     deadline also covers a server that stopped answering altogether. Opening for writing
    ///     waits up to two minutes for another session's migration, then fails, saying so.
    /// - Throws: `EventLogError`: the server cannot be reached, refuses the credentials or the
    ///   TLS mode, holds no store (read-only), a newer store, or a `rewind` schema that is not
    ///   a store's.
    public static func open(
        _ location: PostgresLocation, mode: EventLog.Mode = .readWrite, connectTimeout: Duration = .seconds(10),
        queryTimeout: Duration = defaultQueryTimeout
    ) async throws(EventLogError) -> PostgresLog {
        try await open(location, mode: mode, connectTimeout: connectTimeout, queryTimeout: queryTimeout, migrationLockWait: PostgresMigrator.defaultLockWait, role: nil)
    }

    /// ``open(_:mode:connectTimeout:queryTimeout:)``, waiting at most `migrationLockWait` for
    /// another session's migration (tests shorten it), naming the connection after `role`
    /// (``applicationName(_:)``; by default `writer` or `reader`, after `mode`).
    static func open(
        _ location: PostgresLocation, mode: EventLog.Mode, connectTimeout: Duration, queryTimeout: Duration, migrationLockWait: Duration,
        role: String?
    ) async throws(EventLogError) -> PostgresLog {
        let connection: PostgresConnection
        do {
            connection = try await connect(location, role: role ?? (mode == .readWrite ? "writer" : "reader"), connectTimeout: connectTimeout, queryTimeout: queryTimeout, logger: logger)
        } catch {
            throw PostgresFailure.describe(error, at: location, doing: "connect")
        }
        let store = PostgresLog(location: location, mode: mode, connection: connection, queryTimeout: queryTimeout)
        do {
            // The server compresses a large value (a snapshot's state) as it stores it: with lz4
            // where it has it (PostgreSQL 14 and later, built with lz4), about five times
            // faster than the default pglz (0.27 against 1.4 ms for 88 KB of a shop's state)
            // for about a seventh more bytes; a store's recorder waits on it once a snapshot.
            // For this connection only, and nothing where the server lacks it: the tables keep
            // the server's default, and every reader decompresses either.
            let started = try await store.rows("""
                SELECT pg_backend_pid(), (SELECT set_config('default_toast_compression', 'lz4', false) FROM pg_settings
                                          WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals))
                """)
            guard let (backend, _) = try started.first?.decode((Int32, String?).self) else {
                throw EventLogError.failed(path: location.description, reason: "a query that returns one row returned none")
            }
            store.backendPID.store(backend, ordering: .releasing)
            let version = try await PostgresMigrator.version(store)
            switch mode {
            case .readWrite:
                try await PostgresMigrator.migrate(store, lockWait: migrationLockWait)
            case .readOnly:
                guard version > 0 else {
                    throw EventLogError.failed(path: location.description, reason: "there is no Rewind log store in this database (nothing was pushed or recorded into it yet)")
                }
                guard version <= latestSchemaVersion else {
                    throw EventLogError.newerSchema(path: location.description, found: version, supported: latestSchemaVersion)
                }
                guard version == latestSchemaVersion else {
                    throw EventLogError.failed(
                        path: location.description,
                        reason: "the store is at schema version \(version); open it for writing once to migrate it to \(latestSchemaVersion)"
                    )
                }
            }
        } catch {
            await store.close()
            throw PostgresFailure.describe(error, at: location, doing: "open the store")
        }
        return store
    }

    /// The store's schema version (`rewind.schema_migrations`).
    public func schemaVersion() async throws(EventLogError) -> Int {
        do {
            return try await PostgresMigrator.version(self)
        } catch {
            throw PostgresFailure.describe(error, at: location, doing: "read the schema version")
        }
    }

    /// Closes the connection. Further use fails.
    ///
    /// A store released without it closes its connection anyway, without waiting (a store
    /// dropped on an error path, say): the server's backend goes once the close reaches it.
    public func close() async {
        try? await connection.close()
    }

    deinit {
        // Closed on the connection's event loop, where NIO closes a channel at once; the
        // closure holds the connection until then. (postgres-nio's connection asserts, in a
        // debug build, that it was closed before it goes: a dropped store took the whole
        // process with it.)
        let connection = connection
        guard !connection.isClosed else { return }
        connection.eventLoop.execute { let _: EventLoopFuture<Void> = connection.close() }
    }
}
