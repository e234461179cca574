import Foundation
import Rewind
import RewindExamples
import RewindLog
@testable import RewindPostgres
import RewindTestSupport
import Testing

/// `rewind push`, as the built binary, under the faults that threaten it: killed mid-push, the
/// server restarted mid-push, wrong credentials.
@Suite("rewind push", .enabled(if: PostgresTestServer.enabled))
struct PushCommandTests {
    /// The demo's shop log of `actions` actions, recorded by the built `rewind`.
    static func demoLog(actions: Int, in folder: TemporaryDirectory) async throws -> String {
        let result = try await run(builtProduct("rewind"), ["demo", "--quiet", "--actions", "\(actions)", "--output", "demo.rewind"], in: folder.path)
        #expect(result.status == 0, "\(result.standardError)")
        return folder.file("demo.rewind")
    }

    /// `location` as the tool's argument: without its password, which the tool takes from
    /// `PGPASSWORD` as a user should give it (``PostgresTestServer/location()`` sets it), unless
    /// `withPassword` (a test of a wrong one).
    static func url(_ location: PostgresLocation, withPassword: Bool = false) -> String {
        let password = withPassword ? ":\(location.password ?? "")" : ""
        return "postgres://\(location.user)\(password)@\(location.host):\(location.port)/\(location.database)?sslmode=disable"
    }

    /// Events in the store, and how many distinct (session, origin seq) pairs: equal when
    /// nothing was added twice.
    static func counts(_ location: PostgresLocation) async throws -> (events: Int, distinct: Int) {
        let row = try await PostgresTestServer.strings(location, """
            SELECT count(*)::text || ' ' || count(DISTINCT (session_id, origin_seq))::text FROM rewind.events
            """).first ?? "0 0"
        let parts = row.split(separator: " ").compactMap { Int($0) }
        return (parts.first ?? 0, parts.last ?? 0)
    }

    /// Starts `rewind push` in the background; the caller waits for it.
    static func startPush(_ log: String, _ url: String, batchSize: Int, in folder: TemporaryDirectory) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: builtProduct("rewind"))
        process.arguments = ["push", log, url, "--batch-size", "\(batchSize)"]
        process.currentDirectoryURL = URL(fileURLWithPath: folder.path)
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return (process, errors)
    }

    /// Waits until the store has at least `count` events (or `seconds` pass).
    static func waitForEvents(_ location: PostgresLocation, atLeast count: Int, seconds: Double = 60) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if (try? await counts(location).events) ?? 0 >= count { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("the store never reached \(count) events")
    }

    /// Makes every insert into the store's events take `seconds` longer (a statement trigger
    /// sleeping in the server), so a test that interrupts a push finds it still going however
    /// busy the machine is; ``removeSlowInserts(_:)`` takes it away.
    static func slowInserts(_ location: PostgresLocation, seconds: Double) async throws {
        _ = try await PostgresTestServer.strings(location, """
            CREATE OR REPLACE FUNCTION public.rewind_test_slow_insert() RETURNS trigger LANGUAGE plpgsql AS
            $$ BEGIN PERFORM pg_sleep(\(seconds)); RETURN NULL; END $$
            """)
        _ = try await PostgresTestServer.strings(location, """
            CREATE TRIGGER rewind_test_slow AFTER INSERT ON rewind.events
            FOR EACH STATEMENT EXECUTE FUNCTION public.rewind_test_slow_insert()
            """)
    }

    static func removeSlowInserts(_ location: PostgresLocation) async throws {
        _ = try await PostgresTestServer.strings(location, "DROP TRIGGER rewind_test_slow ON rewind.events")
    }

    /// Runs `Tools/postgres.sh COMMAND DIR` to the end, its output going to `DIR.out`, and
    /// returns its exit status. Not through Foundation's `Process`: a script that starts a
    /// server daemon (through runuser as root) can leave Process waiting for an exit it never
    /// sees, so this spawns and reaps the child itself.
    static func script(_ script: String, _ command: String, _ directory: String) -> Int32 {
        var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, directory + ".out", O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let arguments = ["/bin/bash", script, command, directory]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, "/bin/bash", &actions, nil, &argv, environ) == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            // Reaped by someone else (Foundation reaps children it did not start, too): the
            // script's effects (the port file, a running server) say how it went.
            if errno != EINTR { return 0 }
        }
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
    }

    @Test("push reports what it added; pushing again adds nothing; a wrong password is refused without being shown")
    func pushTwice() async throws {
        let folder = try TemporaryDirectory()
        let log = try await Self.demoLog(actions: 400, in: folder)
        try await PostgresTestServer.withDatabase { location in
            let first = try await run(builtProduct("rewind"), ["push", log, Self.url(location), "--json"], in: folder.path)
            #expect(first.status == 0, "\(first.standardError)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(first.standardOutput.utf8)) as? [String: Any])
            #expect(report["events"] as? Int == 400 && report["newSessions"] as? Int == 1)
            #expect(Set(report.keys) == ["store", "logID", "sessions", "newSessions", "events", "alreadyThere", "snapshots", "gaps"])
            var named = location
            named.tls = .disable
            #expect(report["store"] as? String == named.description, "named without its password")
            let second = try await run(builtProduct("rewind"), ["push", log, Self.url(location)], in: folder.path)
            #expect(second.standardOutput.hasPrefix("pushed 0 events (0 new of 1 sessions") && second.standardOutput.contains("400 events were there already"))
            var wrong = location
            wrong.password = "hunter2-wrong"
            let refused = try await run(builtProduct("rewind"), ["push", log, Self.url(wrong, withPassword: true)], in: folder.path)
            #expect(refused.status == 2 && refused.standardError.contains("the server refused user '\(location.user)'"))
            #expect(!refused.standardError.contains("hunter2") && !refused.standardOutput.contains("hunter2"))
            #expect(try await Self.counts(location) == (400, 400))
        }
    }

    /// An action a payload of about 1 MiB.
    struct Upload: Codable, Sendable { var index: Int; var body: String }

    /// A log at `path` of one session of `uploads` actions of about 1 MiB each, each its own
    /// (no two alike, so none is stored once and shared); with `states`, a state of 4 MiB
    /// after every 40th.
    static func uploadsLog(at path: String, uploads: Int, states: Bool = false) throws -> EventLog {
        let log = try EventLog(path: path)
        let session = try log.beginSession(app: AppIdentity(id: "com.example.uploads"), initialState: "")
        for first in stride(from: 0, to: uploads, by: 8) {
            try log.append((first..<min(first + 8, uploads)).map { index in
                EventRecord(Upload(index: index, body: String(repeating: String(index % 10), count: 1 << 20)), source: ActionSource())
            }, to: session)
            if states, first % 40 == 0 {
                try log.appendSnapshot(String(repeating: String(first % 10), count: 4 << 20), to: session, after: try #require(try log.seqRange()).upperBound)
            }
        }
        return log
    }

    @Test("a push of a log much larger than its batches holds a batch or two in memory, never the log")
    func pushMemoryIsBounded() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("uploads.rewind")
        // 160 MiB of payloads: twenty of the push's 8 MiB batches.
        let uploads = 160
        try Self.uploadsLog(at: path, uploads: uploads).close()
        try await PostgresTestServer.withDatabase { location in
            let pushed = try await run(builtProduct("rewind"), ["push", path, Self.url(location), "--json"], in: folder.path)
            #expect(pushed.status == 0, "\(pushed.standardError)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(pushed.standardOutput.utf8)) as? [String: Any])
            #expect(report["events"] as? Int == uploads)
            #expect(try await Self.counts(location) == (uploads, uploads))
            // Two batches of 8 MiB at most in hand (one read while the other is copied), their
            // `COPY` text, and the process's own 50–60 MiB: 100–125 MiB measured (release, debug), against
            // over 500 MiB when a page was 256 events whatever their size.
            let peak = try #require(pushed.peakResidentKilobytes, "Linux's /proc gives a process's peak")
            #expect(peak < 150 * 1024, "the pusher held \(peak / 1024) MiB at its peak, for \(uploads) MiB of payloads")
        }
    }

    @Test("a store's log pushes into another store as it is, read in place: the same log, every byte; again, nothing; sessions recorded into a store are refused")
    func storeToStore() async throws {
        let folder = try TemporaryDirectory()
        let log = try await Self.demoLog(actions: 300, in: folder)
        let logID = try #require(try EventLog(path: log, mode: .readOnly).identity()).uuidString.lowercased()
        try await PostgresTestServer.withDatabase { first in
            try await PostgresTestServer.withDatabase { second in
                let pushed = try await run(builtProduct("rewind"), ["push", log, Self.url(first)], in: folder.path)
                #expect(pushed.status == 0, "\(pushed.standardError)")
                let moved = try await run(builtProduct("rewind"), ["push", Self.url(first) + "&log=" + logID, Self.url(second), "--json"], in: folder.path)
                #expect(moved.status == 0, "\(moved.standardError)")
                let report = try #require(try JSONSerialization.jsonObject(with: Data(moved.standardOutput.utf8)) as? [String: Any])
                #expect(report["logID"] as? String == logID && report["events"] as? Int == 300 && report["newSessions"] as? Int == 1)
                let again = try await run(builtProduct("rewind"), ["push", Self.url(first) + "&log=" + logID, Self.url(second)], in: folder.path)
                #expect(again.standardOutput.contains("300 events were there already"), "\(again.standardOutput)")
                let fromFile = try await run(builtProduct("rewind"), ["push", log, Self.url(second)], in: folder.path)
                #expect(fromFile.standardOutput.contains("300 events were there already"), "the file and the store's copy are one log")

                let store = try await PostgresLog.open(second, mode: .readOnly)
                let reader = try await store.reader()
                #expect(try PostgresPullTests.everything(reader) == PostgresPullTests.everything(try EventLog(path: log, mode: .readOnly)))
                await store.close()

                // Sessions a service recorded into the store have no log identity to push by.
                _ = try await recordSession(
                    into: try await RecordingDestination.postgres(first, install: "api-1"), app: AppIdentity(id: "com.example.shop"),
                    initialState: ShopState(), reducer: Shop.reducer, effects: Shop.effects(environment: .simulated), user: Shopper(seed: 2), actions: 20
                )
                let refused = try await run(builtProduct("rewind"), ["push", Self.url(first) + "&install=api-1", Self.url(second)], in: folder.path)
                #expect(refused.status == 2 && refused.standardError.contains("pull them into a file"), "\(refused.standardError)")
                #expect(!refused.standardError.contains(first.password ?? "no password"))
            }
        }
    }

    @Test("a pusher killed mid-push (SIGKILL) leaves whole batches; pushing again completes without duplicates")
    func killedMidPush() async throws {
        let folder = try TemporaryDirectory()
        let log = try await Self.demoLog(actions: 6_000, in: folder)
        try await PostgresTestServer.withDatabase { location in
            await (try PostgresLog.open(location)).close()
            // 240 batches at 50 ms or more each: the push is still going at its 20th.
            try await Self.slowInserts(location, seconds: 0.05)
            let (process, _) = try Self.startPush(log, Self.url(location), batchSize: 25, in: folder)
            try await Self.waitForEvents(location, atLeast: 500)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal)
            try await Self.removeSlowInserts(location)
            let partial = try await Self.counts(location)
            #expect(partial.events == partial.distinct && partial.events % 25 == 0 && partial.events < 6_000, "whole batches only: \(partial)")
            let finished = try await run(builtProduct("rewind"), ["push", log, Self.url(location), "--json"], in: folder.path)
            #expect(finished.status == 0, "\(finished.standardError)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(finished.standardOutput.utf8)) as? [String: Any])
            #expect(report["alreadyThere"] as? Int == partial.events && report["events"] as? Int == 6_000 - partial.events)
            #expect(try await Self.counts(location) == (6_000, 6_000))
        }
    }

    @Test("the server gone mid-copy, with its word or without: a clean error, never a trap; pushing again completes")
    func cutMidCopy() async throws {
        let folder = try TemporaryDirectory()
        let log = try await Self.demoLog(actions: 6_000, in: folder)
        try await PostgresTestServer.withDatabase { location in
            await (try PostgresLog.open(location)).close()
            // Cut at points through the push's copies, with and without the server's word (the
            // word is what a restart sends, and was what made postgres-nio trap: a copy's next
            // step reached the connection it had closed, before copies ran on its event loop).
            for (cut, farewell) in [40_000, 90_000, 160_000, 240_000, 330_000].flatMap({ [($0, true), ($0, false)] }) {
                let proxy = try CuttingProxy(to: location.port, cutAfter: cut, farewell: farewell)
                defer { proxy.stop() }
                var through = location
                through.port = proxy.port
                let cutShort = try await run(builtProduct("rewind"), ["push", log, Self.url(through), "--batch-size", "500"], in: folder.path)
                #expect(!cutShort.signaled && cutShort.status == 2, "cut after \(cut) bytes, farewell \(farewell): signaled \(cutShort.signaled), \(cutShort.status): \(cutShort.standardError)")
                #expect(cutShort.standardError.contains("127.0.0.1:\(proxy.port)"), "\(cutShort.standardError)")
                let partial = try await Self.counts(location)
                #expect(partial.events == partial.distinct && partial.events < 6_000, "cut after \(cut) bytes: \(partial)")
            }
            let finished = try await run(builtProduct("rewind"), ["push", log, Self.url(location)], in: folder.path)
            #expect(finished.status == 0, "\(finished.standardError)")
            #expect(try await Self.counts(location) == (6_000, 6_000))
        }
    }

    @Test("the server restarted mid-push: a clean error naming the store, then pushing again completes")
    func serverRestarted() async throws {
        let server = try PrivatePostgresServer.start()
        defer { server.stop() }
        let location = server.location
        let folder = try TemporaryDirectory()
        let log = try await Self.demoLog(actions: 6_000, in: folder)
        await (try PostgresLog.open(location)).close()
        // 1,200 batches at 20 ms or more each: the push is still going when the server restarts.
        try await Self.slowInserts(location, seconds: 0.02)
        // A server of its own, with a password of its own (PGPASSWORD is the shared server's).
        let (process, errors) = try Self.startPush(log, Self.url(location, withPassword: true), batchSize: 5, in: folder)
        try await Self.waitForEvents(location, atLeast: 200)
        #expect(server.restart())
        process.waitUntilExit()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationReason == .exit && process.terminationStatus == 2, "the push fails when its connection is cut: \(message)")
        #expect(message.contains("127.0.0.1:\(location.port)") && !message.contains(location.password ?? "<none>"), "\(message)")
        // In words, whichever way the connection went: not postgres-nio's code for it.
        #expect(!["clientClosedConnection", "serverClosedConnection", "uncleanShutdown"].contains { message.contains($0) }, "\(message)")
        let partial = try await Self.counts(location)
        #expect(partial.events == partial.distinct && partial.events % 5 == 0 && partial.events < 6_000, "whole batches only: \(partial)")
        try await Self.removeSlowInserts(location)
        let finished = try await run(builtProduct("rewind"), ["push", log, Self.url(location, withPassword: true)], in: folder.path)
        #expect(finished.status == 0, "\(finished.standardError)")
        #expect(try await Self.counts(location) == (6_000, 6_000))
    }
}
