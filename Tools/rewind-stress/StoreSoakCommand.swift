#if PostgreSQL
import ArgumentParser
import Foundation
import Rewind
import RewindExamples
import RewindLog
import RewindPostgres
import RewindTestProcesses
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes one line of the soak's report at once, unbuffered: into a file or a CI log too, a
/// run of minutes shows how it goes.
func report(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// A duration as milliseconds, for the soak's lines.
func milliseconds(_ duration: Duration) -> String {
    String(format: "%.1f ms", duration.seconds * 1_000)
}

/// `store-soak`: the recorder into PostgreSQL and `rewind serve` over the same store, for
/// minutes, through the faults a store meets in production — its own backend stopped twice,
/// the server restarted, `serve` restarted — checking what the store's documentation promises:
/// (the todo app's generated session, dispatched over and over at a steady rate),
/// dispatch never waits longer than the stall limit and one commit; every action dispatched is
/// in the store or counted in a gap; the store replays to the app's live state; `serve` keeps
/// answering; resident memory stays flat. First it runs a long train of statements on one
/// connection (memory flat: nothing kept per statement).
///
/// It needs a server on this machine that its user may signal (`Tools/postgres.sh start`
/// makes one), whose user may create databases: each run uses a new database, dropped after.
/// Interrupted (Ctrl-C, SIGTERM), it continues a backend it holds stopped and stops `serve`
/// before it exits (``SoakInterruption``); the database is then kept, and named.
struct StoreSoakCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store-soak",
        abstract: "Record into PostgreSQL with `rewind serve` reading the same store, through stopped backends and restarts.",
        discussion: """
            Needs a PostgreSQL server on this machine whose backends this user may signal \
            (SIGSTOP), and whose user may create databases (Tools/postgres.sh start DIR makes \
            one). Fails, saying which, when a promise does not hold. Interrupted (Ctrl-C, \
            SIGTERM), it continues any backend it stopped and stops `rewind serve` before it \
            exits 128 + the signal, keeping the run's database (named on the way out).
            """
    )

    @Option(help: "The server's URL (default: $REWIND_TEST_POSTGRES_URL).")
    var store: String?

    @Option(help: "A shell command that restarts the server mid-run (e.g. 'Tools/postgres.sh restart DIR'); without it the run's connections are cut instead.")
    var restartServer: String?

    @Option(help: "How long the recording runs, in seconds.")
    var seconds = 600

    @Option(help: "Actions dispatched per second.")
    var rate = 2_000

    @Option(help: "How long each stop of the recorder's backend lasts, in seconds (longer than the writer's 10 s query timeout by default).")
    var stopSeconds = 12

    @Option(help: "The recorder's buffer, in actions (default: the recorder's own). A small one makes dispatch wait on the stopped store instead of buffering through the stall limit.")
    var bufferCapacity: Int?

    @Option(help: "Statements run on one connection after the soak (0: none).")
    var statements = 1_000_000

    @Option(help: "Most a process's resident memory may grow, in MB, from a quarter of the way on to the end.")
    var memoryGrowthMB = 16

    @Option(help: "Seed of the todo session dispatched.")
    var seed: UInt64 = 1

    /// The app a soak runs: the todo app, whose state stays bounded however often its
    /// generated session is dispatched again (the same lists and items, made and deleted), so
    /// that memory that grows is the soak's finding, not the app's history.
    static let app = AppIdentity(id: "com.example.todo")

    func validate() throws {
        guard seconds >= 30 else { throw ValidationError("--seconds: at least 30 (the faults need room)") }
        guard rate > 0, stopSeconds > 0, statements >= 0, memoryGrowthMB > 0, (bufferCapacity ?? 1) > 0 else {
            throw ValidationError("--rate, --stop-seconds and --memory-growth-mb must be positive, --statements not negative")
        }
        guard Double(stopSeconds) * 2 < Double(seconds) * 0.5 else { throw ValidationError("--stop-seconds: two stops must fit in half of --seconds") }
    }

    func run() async throws {
        guard let url = store ?? ProcessInfo.processInfo.environment["REWIND_TEST_POSTGRES_URL"] else {
            throw ValidationError("give --store URL or set REWIND_TEST_POSTGRES_URL (Tools/postgres.sh start DIR prints one)")
        }
        let server = try PostgresLocation(parsing: url)
        let database = try await SoakDatabase.create(on: server)
        let interruption = SoakInterruption(leaving: "the run's database is kept: \(database.location) (drop it when done)")
        var failures: [String] = []
        do {
            failures += try await soak(database, interruption: interruption)
            if statements > 0 { failures += try await statementTrain(database.location) }
        } catch {
            await database.drop()
            throw error
        }
        guard failures.isEmpty else {
            report("\nFAILED:")
            for failure in failures { report("  - \(failure)") }
            // Kept for a look: `rewind sessions` and `rewind verify` on its URL with `?install=soak`.
            report("the run's database is kept: \(database.location) (drop it when done)")
            throw ExitCode.failure
        }
        await database.drop()
        report("\nstore-soak passed")
    }

    // MARK: - Statements on one connection

    /// `statements` statements on one connection — a reader of the soak's log asking for its
    /// sessions, one statement each, as `serve` does for every call — with its resident memory
    /// when a tenth are done and at the end.
    private func statementTrain(_ location: PostgresLocation) async throws -> [String] {
        var location = location
        location.install = "soak"
        let reader = try await PostgresLogReader.open(location)
        defer { Task { await reader.close() } }
        let clock = ContinuousClock()
        let start = clock.now
        var warm: Int?
        for index in 0..<statements {
            _ = try reader.sessions()
            if index == statements / 10 { warm = residentKilobytes() }
            // A tenth at a time: a million take minutes.
            if statements >= 10, (index + 1) % (statements / 10) == 0 {
                let rate = Double(index + 1) / (clock.now - start).seconds
                report(String(format: "  statements: %d of %d (%.0f a second), resident memory %.1f MB", index + 1, statements, rate, Double(residentKilobytes() ?? 0) / 1_024))
            }
        }
        let elapsed = (clock.now - start).seconds
        let end = residentKilobytes()
        report(String(format: "statements: %d on one connection in %.1f s (%.0f a second)", statements, elapsed, Double(statements) / elapsed))
        guard let warm, let end else { return [] }
        let growth = Double(end - warm) / 1_024
        report(String(format: "  resident memory %.1f MB after a tenth, %.1f MB at the end (%+.1f MB)", Double(warm) / 1_024, Double(end) / 1_024, growth))
        // The leak this guards against held a callback per statement: a million of them are
        // tens of megabytes.
        return growth > 8 ? [String(format: "%d statements on one connection grew resident memory by %.1f MB", statements, growth)] : []
    }

    // MARK: - The soak

    private func soak(_ database: SoakDatabase, interruption: SoakInterruption) async throws -> [String] {
        let install = "soak"
        // Counts only: a failure holds up to a buffer of actions, which the soak must not keep.
        let failures = Mutex<(lost: Int, stalls: Int, reported: Int)>((0, 0, 0))
        var configuration = RecorderConfiguration<TodoState, TodoAction>()
        configuration.onFailure = { failure in
            let stalled = if case .stalled = failure.error { true } else { false }
            failures.withLock { $0 = ($0.lost + failure.unrecorded.count + failure.unlisted, $0.stalls + (stalled ? 1 : 0), $0.reported + 1) }
        }
        if let bufferCapacity { configuration.bufferCapacity = bufferCapacity }
        let stallLimit = configuration.stallLimit
        let recorder = Recorder<TodoState, TodoAction>(
            into: try await .postgres(database.location, install: install), app: Self.app, configuration: configuration
        )
        let store = Store(initialState: TodoState(), reducer: Todo.reducer, middleware: recorder.middleware)
        let dispatcher = SoakDispatcher(store: store, actions: SessionSource.todoActions(seed: seed), rate: rate)

        var reading = database.location
        reading.install = install
        let inspector = SoakInspector(location: reading)
        interruption.terminating { inspector.pid }
        try inspector.start()
        dispatcher.start()
        let sampler = SoakSampler(dispatcher: dispatcher, inspector: inspector)
        let clock = ContinuousClock()
        let start = clock.now
        report("soak: \(seconds) s at \(rate) actions a second; buffer \(configuration.bufferCapacity) actions, stall limit \(stallLimit), backend stops of \(stopSeconds) s")
        report("      t    dispatched  longest dispatch    RSS soak   RSS serve  serve calls")
        let sampling = Task { await sampler.run(every: .seconds(max(1, seconds / 20)), from: start) }

        func at(_ fraction: Double) async throws {
            let when = start + .milliseconds(Int(Double(seconds) * fraction * 1_000))
            if clock.now < when { try await Task.sleep(until: when, clock: clock) }
        }
        func say(_ text: String) { report(String(format: "  %5.1f s  ", (clock.now - start).seconds) + text) }

        var events: [String] = []
        try await at(0.15)
        events.append(try await stopBackend(database, install: install, interruption: interruption, say: say))
        try await at(0.35)
        inspector.faultHappened()
        events.append(try await restartServer(database, say: say))
        try await at(0.5)
        events.append(try await stopBackend(database, install: install, interruption: interruption, say: say))
        try await at(0.65)
        say("restarting rewind serve")
        inspector.restart()
        sampler.markServeStart()
        events.append("rewind serve restarted")
        try await at(1)

        dispatcher.stop()
        sampling.cancel()
        _ = await sampling.result
        await inspector.stop()
        // The last failure (if any) is reported by the first flush; the second must succeed.
        try? await recorder.flush()
        try await recorder.flush()
        try await recorder.close()
        report("events: " + events.joined(separator: "; "))
        return try await check(
            database: database, install: install, store: store, dispatcher: dispatcher, inspector: inspector, sampler: sampler,
            failures: failures.withLock { $0 }, stallLimit: stallLimit
        )
    }

    /// Stops the recorder's backend (found by its connection's name) for `stopSeconds`.
    private func stopBackend(_ database: SoakDatabase, install: String, interruption: SoakInterruption, say: (String) -> Void) async throws -> String {
        var pids: [pid_t] = []
        // Between connections (after a failure, before its next batch) there is none: wait.
        for _ in 0..<50 where pids.isEmpty {
            pids = try await database.backends(named: "rewind recorder \(install)")
            if pids.isEmpty { try await Task.sleep(for: .milliseconds(100)) }
        }
        guard !pids.isEmpty else { throw ValidationError("the recorder has no backend to stop") }
        interruption.stopping(pids)
        for pid in pids where kill(pid, SIGSTOP) != 0 {
            throw ValidationError("cannot stop backend \(pid) (\(String(cString: strerror(errno)))): run as the server's owner")
        }
        say("stopped the recorder's backend \(pids.map(String.init).joined(separator: ", "))")
        try await Task.sleep(for: .seconds(stopSeconds))
        for pid in pids { kill(pid, SIGCONT) }
        interruption.continued(pids)
        say("continued it")
        return "backend stopped \(stopSeconds) s"
    }

    /// Restarts the server with `--restart-server`, or cuts every connection of the run.
    private func restartServer(_ database: SoakDatabase, say: (String) -> Void) async throws -> String {
        guard let restartServer else {
            let cut = try await database.terminateOthers()
            say("cut \(cut) connections of the run (pg_terminate_backend)")
            return "\(cut) connections cut"
        }
        say("restarting the server: \(restartServer)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", restartServer]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw ValidationError("`\(restartServer)` failed with status \(process.terminationStatus)") }
        say("server restarted")
        return "server restarted"
    }

    // MARK: - Checks

    private func check(
        database: SoakDatabase, install: String, store: Store<TodoState, TodoAction>, dispatcher: SoakDispatcher, inspector: SoakInspector,
        sampler: SoakSampler, failures: (lost: Int, stalls: Int, reported: Int), stallLimit: Duration
    ) async throws -> [String] {
        var problems: [String] = []
        var location = database.location
        location.install = install
        let reader = try await PostgresLogReader.open(location)
        let sessions = try reader.sessions()
        let gaps = try reader.gaps()
        let restored = try reader.restoredState(app: Self.app, reducer: Todo.reducer)
        await reader.close()

        let recorded = sessions.reduce(0) { $0 + Int($1.eventCount) }
        let lost = gaps.reduce(0) { $0 + $1.lost }
        let reported = failures.lost
        report("recorded: \(dispatcher.dispatched) dispatched = \(recorded) in \(sessions.count) sessions + \(lost) in \(gaps.count) gaps (\(failures.reported) failures reported with \(reported) actions, \(failures.stalls) of them stalls)")
        if recorded + lost != dispatcher.dispatched {
            problems.append("\(dispatcher.dispatched) actions dispatched, but \(recorded) recorded and \(lost) counted in gaps")
        }
        if reported != lost { problems.append("\(reported) actions reported lost to onFailure, \(lost) counted in gaps") }
        if gaps.isEmpty { problems.append("no gap: the faults never stopped recording, so the run proved nothing about them") }
        if restored != store.state { problems.append("the store does not replay to the app's live state") }

        // A commit already in flight when the store stuck can take up to a second more.
        let bound = stallLimit + .seconds(1)
        report("dispatch: longest \(milliseconds(dispatcher.longest)) (bound: the stall limit and one commit, \(milliseconds(bound)))")
        if dispatcher.longest > bound { problems.append("a dispatch waited \(dispatcher.longest), more than \(bound)") }

        let answers = inspector.summary()
        report(answers.description)
        problems += answers.problems
        problems += sampler.memoryProblems(allowedGrowthKB: memoryGrowthMB * 1_024)
        return problems
    }
}
#endif
