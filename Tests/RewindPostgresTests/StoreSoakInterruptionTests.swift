import Foundation
@testable import RewindPostgres
import RewindTestProcesses
import RewindTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `rewind-stress store-soak` stopped by a signal in the middle of one of its backend stops
/// (Ctrl-C in a terminal, CI stopping a failed run): it must not leave the backend stopped —
/// the server could then never be shut down — nor `rewind serve` running. Linux only: it reads
/// the processes' states in /proc.
#if os(Linux)
@Suite("Store soak, interrupted", .enabled(if: PostgresTestServer.enabled))
struct StoreSoakInterruptionTests {
    @Test("interrupted while it holds a backend stopped: the backend is continued, serve is stopped, the run exits 128 + the signal", arguments: [SIGINT, SIGTERM])
    func interrupted(signalNumber: Int32) async throws {
        let server = try PostgresTestServer.location()
        var url = server
        url.password = nil
        // The soak's output into a file the shell watches: the signal goes once a backend is
        // stopped (at 15 % of the run; its stop lasts 20 s).
        let folder = try TemporaryDirectory()
        let output = folder.file("soak.out")
        let script = """
            "$0" store-soak --store "$1" --seconds 100 --stop-seconds 20 --statements 0 >"$2" 2>&1 &
            soak=$!
            for _ in $(seq 300); do grep -q "stopped the recorder's backend" "$2" && break; sleep 0.2; done
            kill -\(signalNumber) "$soak"
            wait "$soak"
            echo "exit $?"
            """
        let result = try await run("/bin/sh", ["-c", script, builtProduct("rewind-stress"), url.description, output], timeout: 120)
        let said = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        // Whatever happens, its database goes with the test.
        if let database = said.firstMatch(of: /rewind_soak_[0-9a-f]+/)?.0 {
            try? await PostgresTestServer.admin(server, "DROP DATABASE IF EXISTS \(database) WITH (FORCE)")
        }
        #expect(result.standardOutput.contains("exit \(128 + signalNumber)"), "\(result.standardOutput)\n\(said)")
        let backend = try #require(said.firstMatch(of: /stopped the recorder's backend (\d+)/).flatMap { pid_t(String($0.1)) }, "\(said)")
        let serve = try #require(said.firstMatch(of: /stopped rewind serve \((\d+)\)/).flatMap { pid_t(String($0.1)) }, "\(said)")
        #expect(said.contains("continued the stopped backend \(backend)"))
        #expect(said.contains("the run's database is kept"))
        // The backend runs again (or has ended with its connection); serve has ended.
        #expect(await Self.state(of: backend, within: .seconds(5)) { $0 != "T" }, "backend \(backend) is still stopped")
        #expect(await Self.state(of: serve, within: .seconds(5)) { $0 == nil || $0 == "Z" }, "rewind serve \(serve) still runs")
    }

    /// Whether process `pid`'s state (``processState(_:)``: `nil` when it is gone) satisfies
    /// `condition` within `limit`.
    private static func state(of pid: pid_t, within limit: Duration, _ condition: (Character?) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while true {
            if condition(processState(pid)) { return true }
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }
}
#endif
