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
            // The store's timeout is what is tested; 5 s rather than 1 so that the statements
            // before the stall (opening, migrating, the backend's pid) fit in it on a machine the
            // whole suite is loading (at 1 s, opening once failed that way in CI).
            let store = try await PostgresLog.open(location, queryTimeout: .seconds(5))
            let backend = try await store.single(Int32.self, "SELECT pg_backend_pid()")
            #expect(kill(pid_t(backend), SIGSTOP) == 0)
            defer { kill(pid_t(backend), SIGCONT) }
            let clock = ContinuousClock()
            let start = clock.now
            await #expect {
                _ = try await store.rows("SELECT 1")
            } throws: { error in
                "\(error)".contains("did not answer within 5") && "\(error)".contains("connection was closed")
            }
            let waited = clock.now - start
            // The timeout plus the client's second of grace, on a machine the suite is loading.
            #expect(waited >= .seconds(5) && waited < .seconds(30), "waited \(waited)")
            #expect(store.connection.isClosed)
            // Later statements fail at once, and nothing waits on the closed connection.
            await #expect(throws: EventLogError.self) { _ = try await store.rows("SELECT 1") }
            #expect(store.inFlight.count == 0)
            kill(pid_t(backend), SIGCONT)
            let again = try await PostgresLog.open(location)
            #expect(try await again.single(Int.self, "SELECT 41 + 1") == 42)
            await again.close()
        }
    }

    @Test("a COMMIT the server refuses fails plainly; one answered by the backend ending (FATAL) is ambiguous, the connection open or not")
    func commitAnswers() async throws {
        try await PostgresTestServer.withDatabase { location in
            let store = try await PostgresLog.open(location)
            defer { Task { await store.close() } }
            // Checked at COMMIT: a deferred constraint the transaction breaks.
            _ = try await store.rows("CREATE TABLE public.deferred (id int UNIQUE DEFERRABLE INITIALLY DEFERRED)")
            await #expect {
                try await store.transaction { _ = try await store.rows("INSERT INTO public.deferred VALUES (1), (1)") }
            } throws: { error in
                !(error is AmbiguousCommit) && PostgresLog.refusedCommit(error)
            }
            #expect(try await store.single(Int.self, "SELECT 41 + 1") == 42, "the connection goes on")
            // A backend that ends at COMMIT (a deferred trigger terminating it, as a shutdown
            // would): the answer is FATAL, whatever the connection is then seen as.
            _ = try await store.rows("""
                CREATE FUNCTION public.rewind_test_end() RETURNS trigger LANGUAGE plpgsql AS
                $$ BEGIN PERFORM pg_terminate_backend(pg_backend_pid()); RETURN NULL; END $$
                """)
            _ = try await store.rows("""
                CREATE CONSTRAINT TRIGGER rewind_test_end AFTER INSERT ON public.deferred DEFERRABLE INITIALLY DEFERRED
                FOR EACH ROW EXECUTE FUNCTION public.rewind_test_end()
                """)
            await #expect(throws: AmbiguousCommit.self) {
                try await store.transaction { _ = try await store.rows("INSERT INTO public.deferred VALUES (2)") }
            }
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
                _ = try await PostgresLog.open(location, mode: .readWrite, connectTimeout: .seconds(10), queryTimeout: .seconds(10), migrationLockWait: .seconds(1), role: nil)
            } throws: { error in
                "\(error)".contains("migration lock")
            }
            // Bounded: a second's wait, plus connecting on a machine the whole suite is loading.
            #expect(clock.now - start < .seconds(30))
            _ = try await holder.rows("SELECT pg_advisory_unlock(\(PostgresMigrator.lockKey))")
            let opened = try await PostgresLog.open(location)
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

    #if os(Linux)
    @Test("a connection probes a silent peer (TCP keepalive after 10 s idle) and names itself to the server")
    func keepaliveAndName() async throws {
        try await PostgresTestServer.withDatabase { location in
            let store = try await PostgresLog.open(location, mode: .readWrite)
            let port = try await store.single(Int32.self, "SELECT inet_client_port()")
            #expect(try await store.single(String.self, "SELECT current_setting('application_name')") == "rewind writer")
            // The kernel's view of the client's socket: timer 2 is the keepalive timer, armed
            // to fire within the idle time (in hundredths of a second). Without keepalive the
            // idle connection has no timer at all. The kernel shows 0 for a timer already due (a
            // loaded machine may read it just as the first probe goes out).
            let socket = try #require(Self.tcpSocket(localPort: Int(port), remotePort: location.port), "no connection from local port \(port) to \(location.port)")
            #expect(socket.timer == 2, "timer \(socket.timer)")
            #expect(socket.expiresIn >= 0 && socket.expiresIn <= PostgresLog.keepalive.idleSeconds * 100, "expires in \(socket.expiresIn)")
            await store.close()

            var recorded = location
            recorded.install = nil
            let recorder = try await PostgresRecordingLog.connect(recorded, install: "soak-7", queryTimeout: .seconds(10))
            #expect(try await recorder.single(String.self, "SELECT current_setting('application_name')") == "rewind recorder soak-7")
            await recorder.close()
            #expect(PostgresLog.applicationName(String(repeating: "é", count: 10) + String(repeating: "x", count: 80)).utf8.count == 63)
        }
    }

    @Test("every connection turns the server's JIT compiler off: writer, reader and recorder")
    func noJIT() async throws {
        try await PostgresTestServer.withDatabase { location in
            for mode in [EventLog.Mode.readWrite, .readOnly] {
                let store = try await PostgresLog.open(location, mode: mode)
                #expect(try await store.single(String.self, "SELECT current_setting('jit')") == "off", "\(mode)")
                await store.close()
            }
            var recorded = location
            recorded.install = nil
            let recorder = try await PostgresRecordingLog.connect(recorded, install: nil, queryTimeout: .seconds(10))
            #expect(try await recorder.single(String.self, "SELECT current_setting('jit')") == "off")
            await recorder.close()
        }
    }

    /// The `timer` and `when` columns of the loopback TCP socket bound to `localPort`
    /// (`/proc/net/tcp`: `tr:tm->when` in hexadecimal).
    /// The established connection from `localPort` to `remotePort` in the kernel's tables: its
    /// timer and when it fires. (Matching the local port alone can find another socket: a
    /// test's server listening on a port this connection's ephemeral port happens to equal.)
    static func tcpSocket(localPort: Int, remotePort: Int) -> (timer: Int, expiresIn: Int)? {
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            // Read to its end: the file says its size is 0, and a busy machine's is many pages.
            guard let data = try? FileHandle(forReadingFrom: URL(fileURLWithPath: table)).readToEnd() else { continue }
            let text = String(decoding: data, as: UTF8.self)
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 5, let local = fields[1].split(separator: ":").last, Int(local, radix: 16) == localPort,
                      let remote = fields[2].split(separator: ":").last, Int(remote, radix: 16) == remotePort,
                      fields[3] == "01"  // ESTABLISHED
                else { continue }
                let timer = fields[5].split(separator: ":")
                guard timer.count == 2, let kind = Int(timer[0], radix: 16), let when = Int(timer[1], radix: 16) else { continue }
                return (kind, when)
            }
        }
        return nil
    }
    #endif
}
