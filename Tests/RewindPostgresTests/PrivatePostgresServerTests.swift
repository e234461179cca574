import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import RewindPostgres
import RewindTestProcesses
import Testing

/// `Tools/postgres.sh` as the tests call it, from a process holding many files open.
@Suite("Private PostgreSQL servers", .enabled(if: PostgresTestServer.enabled))
struct PrivatePostgresServerTests {
    @Test("a server starts however many files its caller holds open")
    func manyOpenFiles() throws {
        // 1,000 descriptors without close-on-exec, as a busy test process holds them (logs,
        // connections). PostgreSQL counts what it inherits against max_files_per_process: before
        // the script closed them, it refused to start ("insufficient file descriptors").
        var descriptors: [Int32] = []
        defer { for descriptor in descriptors { close(descriptor) } }
        for _ in 0..<1_000 {
            let descriptor = open("/dev/null", O_RDONLY)
            guard descriptor >= 0 else { break }
            descriptors.append(descriptor)
        }
        #expect(descriptors.count == 1_000)
        // Where the suite's server runs, this machine can run one more: it must start.
        let server = try PrivatePostgresServer.start()
        server.stop()
    }

    @Test("a server stops, and leaves nothing running, while one of its backends is stopped (SIGSTOP) by a test or soak that was killed")
    func stoppedBackend() async throws {
        let server = try PrivatePostgresServer.start()
        let postmaster = try #require(server.postmaster)
        let store = try await PostgresLog.open(server.location, queryTimeout: .seconds(5))
        let backend = pid_t(try await store.single(Int32.self, "SELECT pg_backend_pid()"))
        #expect(kill(backend, SIGSTOP) == 0)
        // Nobody continues it: its stopper is gone. A fast stop waits for every backend, so
        // without the script's SIGCONT this stop failed after pg_ctl's minute and left the
        // server running.
        let clock = ContinuousClock()
        let start = clock.now
        server.stop()
        let took = clock.now - start
        #expect(await Self.ended(postmaster), "the server still runs after \(took)")
        #expect(await Self.ended(backend), "its stopped backend still runs")
        #expect(took < .seconds(40), "stopping took \(took)")
        kill(backend, SIGCONT)
        await store.close()
    }

    /// Whether process `pid` is gone (or a zombie, ended and not yet reaped by its parent)
    /// within 5 s: `pg_ctl stop -w` returns once the server removes its pid file, a moment
    /// before its process ends.
    private static func ended(_ pid: pid_t) async -> Bool {
        for _ in 0..<50 {
            if kill(pid, 0) == -1 && errno == ESRCH || processState(pid) == "Z" { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
    }
}
