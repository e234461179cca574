import Foundation
import RewindTestProcesses
import Testing

/// The harness every CLI and child-process test runs through: what it promises those tests.
@Suite("Child processes")
struct ChildProcessTests {
    @Test("A grandchild holding the pipes holds the test only for the grace")
    func grandchildHoldingPipes() async throws {
        // A sleep of a length nothing else on the machine uses, so that pgrep finds only this one.
        let result = try await run("/bin/sh", ["-c", "echo before; sleep 121.75 & exit 3"], timeout: 60)
        let took = result.duration
        #expect(result.status == 3)
        #expect(!result.signaled)
        #expect(result.standardOutput == "before\n")
        #expect(took >= .seconds(pipeGrace) && took < .seconds(pipeGrace + 20))
        // The grandchild was killed with its group: nothing is left asleep, once the kill has
        // been delivered (on a loaded machine that can take a moment after the harness sent it).
        var left = ""
        for _ in 0..<50 {
            left = try await run("/bin/sh", ["-c", "pgrep -f 'sleep 121[.]75' || true"]).standardOutput
            if left.isEmpty { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(left.isEmpty)
    }

    @Test("Output, status, signals, folder and environment reach the test")
    func outputAndStatus() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await run(
            "/bin/sh", ["-c", "pwd; echo \"$REWIND_TEST_VALUE\" >&2; head -c 200000 /dev/zero | tr '\\0' x; exit 7"],
            in: folder.path, environment: ["REWIND_TEST_VALUE": "it's here"]
        )
        #expect(result.status == 7 && !result.signaled)
        #expect(result.standardOutput.hasPrefix(folder.resolvingSymlinksInPath().path + "\n"))
        #expect(result.standardOutput.count == folder.resolvingSymlinksInPath().path.count + 1 + 200_000)
        #expect(result.standardError == "it's here\n")
        let crashed = try await run("/bin/sh", ["-c", "kill -SEGV $$"])
        #expect(crashed.signaled && crashed.status == SIGSEGV)
        let slow = try await run("/bin/sh", ["-c", "exec sleep 60"], timeout: 1)
        #expect(slow.signaled && slow.status == SIGKILL)
        #expect(throws: (any Error).self) { try runBlocking("/nonexistent/rewind", []) }
    }
}
