import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
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
}
