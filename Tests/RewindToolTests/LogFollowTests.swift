import Foundation
import RewindTestSupport
import Synchronization
import Testing

/// `rewind log --follow`, the built binary, on a log another process is recording into.
@Suite("rewind log --follow")
struct LogFollowTests {
    /// A running `rewind` whose standard output is collected as it comes.
    final class Following: @unchecked Sendable {
        // `@unchecked`: `output` is behind its lock; the rest is set once in `init`.
        let process = Process()
        private let output = Mutex(Data())
        private let errors = Pipe()

        init(_ arguments: [String], in folder: String) throws {
            process.executableURL = URL(fileURLWithPath: builtProduct("rewind"))
            process.arguments = arguments
            process.currentDirectoryURL = URL(fileURLWithPath: folder)
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = errors
            pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
                let chunk = handle.availableData
                self?.output.withLock { $0.append(chunk) }
            }
            try process.run()
        }

        var lines: [String] { output.withLock { String(decoding: $0, as: UTF8.self) }.split(separator: "\n").map(String.init) }
        var standardError: String { String(decoding: errors.fileHandleForReading.availableData, as: UTF8.self) }

        /// Waits up to `seconds` for `condition` on the lines printed so far.
        func wait(seconds: Double, until condition: ([String]) -> Bool) async -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if condition(lines) { return true }
                try? await Task.sleep(for: .milliseconds(50))
            }
            return condition(lines)
        }
    }

    @Test("prints the listing, then every event another process commits, each once and in order, until Ctrl-C ends it quietly")
    func followsARecorder() async throws {
        let folder = try TemporaryDirectory()
        #expect(try await run(builtProduct("rewind"), ["demo", "--quiet", "--actions", "20", "--output", "live.rewind"], in: folder.path).status == 0)
        let following = try Following(["log", "live.rewind", "--follow", "--json", "--case", "cart.*"], in: folder.path)
        defer { if following.process.isRunning { following.process.terminate() } }
        #expect(await following.wait(seconds: 30) { !$0.isEmpty }, "the listing came")

        // Another process records 300 more actions, in several commits.
        let recorded = try await run(builtProduct("rewind-stress"), ["record", "--log", "live.rewind", "--limit", "300", "--seed", "2", "--flush-every", "50"], in: folder.path)
        #expect(recorded.status == 0, "\(recorded.standardError)")
        let everything = try await run(builtProduct("rewind"), ["log", "live.rewind", "--json", "--case", "cart.*"], in: folder.path)
        let expected = everything.standardOutput.split(separator: "\n").map(String.init)
        #expect(expected.count > 100)
        #expect(await following.wait(seconds: 30) { $0.count >= expected.count }, "followed \(following.lines.count) of \(expected.count)")
        // Nothing more comes: no line twice.
        try await Task.sleep(for: .milliseconds(500))
        #expect(following.lines == expected)

        kill(following.process.processIdentifier, SIGINT)
        following.process.waitUntilExit()
        #expect(following.process.terminationReason == .uncaughtSignal && following.process.terminationStatus == SIGINT)
        #expect(following.standardError.isEmpty, "\(following.standardError)")
    }

    @Test("following from a seq the log has not reached yet prints nothing until it does, then from there on")
    func followsFromAhead() async throws {
        let folder = try TemporaryDirectory()
        #expect(try await run(builtProduct("rewind"), ["demo", "--quiet", "--actions", "20", "--output", "live.rewind"], in: folder.path).status == 0)
        let following = try Following(["log", "live.rewind", "--follow", "--json", "--from", "100"], in: folder.path)
        defer { if following.process.isRunning { following.process.terminate() } }
        try await Task.sleep(for: .milliseconds(500))
        #expect(following.lines.isEmpty && following.process.isRunning)
        let recorded = try await run(builtProduct("rewind-stress"), ["record", "--log", "live.rewind", "--limit", "200", "--seed", "3", "--flush-every", "40"], in: folder.path)
        #expect(recorded.status == 0, "\(recorded.standardError)")
        let expected = try await run(builtProduct("rewind"), ["log", "live.rewind", "--json", "--from", "100"], in: folder.path).standardOutput.split(separator: "\n").map(String.init)
        #expect(expected.count > 50)
        #expect(await following.wait(seconds: 30) { $0.count >= expected.count } && following.lines == expected, "followed \(following.lines.count) of \(expected.count)")
        #expect(following.process.isRunning, "\(following.standardError)")
    }

    @Test("an end to the listing and --follow contradict each other: refused, saying so")
    func refusesAnEnd() async throws {
        let folder = try TemporaryDirectory()
        #expect(try await run(builtProduct("rewind"), ["demo", "--quiet", "--actions", "20", "--output", "live.rewind"], in: folder.path).status == 0)
        for option in [["--to", "5"], ["--until", "1m"], ["--limit", "3"]] {
            let refused = try await run(builtProduct("rewind"), ["log", "live.rewind", "--follow"] + option, in: folder.path)
            #expect(refused.status == 2 && refused.standardError.contains("\(option[0]) ends the listing, --follow never does"), "\(refused.standardError)")
        }
    }
}
