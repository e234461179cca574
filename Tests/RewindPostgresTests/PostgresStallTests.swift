import Foundation
import PostgresNIO
import RewindLog
@testable import RewindPostgres
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A server that stops answering without closing — a stopped backend (SIGSTOP, as a frozen VM
/// or a silent network cut would leave it), a lock held elsewhere — frees its caller within the
/// store's query timeout, and a connection that lives for a million queries holds nothing per
/// query.
@Suite("PostgreSQL store: stalls and long-lived connections", .enabled(if: PostgresTestServer.enabled))
struct PostgresStallTests {
    @Test("a stopped backend: the statement fails at the query timeout, the connection is closed, and opening again works")
    func stoppedBackend() async throws {
        try await PostgresTestServer.withDatabase { location in
            let store = try await PostgresLog.open(location, queryTimeout: .seconds(1))
            let backend = try await store.single(Int32.self, "SELECT pg_backend_pid()")
            #expect(kill(pid_t(backend), SIGSTOP) == 0)
            defer { kill(pid_t(backend), SIGCONT) }
            let clock = ContinuousClock()
            let start = clock.now
            await #expect {
                _ = try await store.rows("SELECT 1")
            } throws: { error in
                "\(error)".contains("did not answer within 1") && "\(error)".contains("connection was closed")
            }
            let waited = clock.now - start
            // The timeout plus the client's second of grace, on a machine the suite is loading.
            #expect(waited >= .seconds(1) && waited < .seconds(20), "waited \(waited)")
            #expect(store.connection.isClosed)
            // Later statements fail at once, and nothing waits on the closed connection.
            await #expect(throws: EventLogError.self) { _ = try await store.rows("SELECT 1") }
            #expect(store.inFlight.count == 0)
            kill(pid_t(backend), SIGCONT)
            let again = try await PostgresLog.open(location, queryTimeout: .seconds(1))
            #expect(try await again.single(Int.self, "SELECT 41 + 1") == 42)
            await again.close()
        }
    }

    @Test("the migration lock held elsewhere: opening for writing waits a bounded time, then fails saying so")
    func migrationLockHeld() async throws {
        try await PostgresTestServer.withDatabase { location in
            let holder = try await PostgresLog.open(location)
            _ = try await holder.rows("SELECT pg_advisory_lock(\(PostgresMigrator.lockKey))")
            let clock = ContinuousClock()
            let start = clock.now
            await #expect {
                _ = try await PostgresLog.open(location, mode: .readWrite, connectTimeout: .seconds(10), queryTimeout: .seconds(10), migrationLockWait: .seconds(1))
            } throws: { error in
                "\(error)".contains("migration lock")
            }
            // Bounded: a second's wait, plus connecting on a machine the whole suite is loading.
            #expect(clock.now - start < .seconds(30))
            _ = try await holder.rows("SELECT pg_advisory_unlock(\(PostgresMigrator.lockKey))")
            let opened = try await PostgresLog.open(location, queryTimeout: .seconds(1))
            await opened.close()
            await holder.close()
        }
    }

    @Test("statements on a long-lived connection leave nothing behind; a closing connection fails the one in flight")
    func longLivedConnection() async throws {
        try await PostgresTestServer.withDatabase { location in
            let store = try await PostgresLog.open(location)
            for _ in 0..<2_000 { _ = try await store.rows("SELECT 1") }
            #expect(store.inFlight.count == 0)
            // One in flight when the connection closes fails at once, not at its deadline.
            let clock = ContinuousClock()
            let start = clock.now
            let slow = Task { try await store.rows("SELECT pg_sleep(30)") }
            try await Task.sleep(for: .milliseconds(300))
            #expect(store.inFlight.count == 1)
            await store.close()
            await #expect(throws: (any Error).self) { _ = try await slow.value }
            #expect(clock.now - start < .seconds(10))
            #expect(store.inFlight.count == 0)
        }
    }
}
