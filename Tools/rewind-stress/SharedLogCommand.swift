import ArgumentParser
import Foundation
import GRDB
import Rewind
import RewindLog
import Synchronization

/// Several processes sharing one log the ways apps do: recorders with retention, one idle for
/// most of the run, one killed and restarted, a writer of whole batches, readers, and a loop
/// exporting and importing the log while it is written.
struct SharedLogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shared",
        abstract: "Share one log between recorders (one trimming, one idle, one killed and restarted), a batch writer, readers and an export loop; check nothing is lost.",
        discussion: """
            Writers, each a process with its own recorder and session: 'trim' records with \
            Retention(maxEvents: 150, checkEvery: 1); 'idle' records one action, idles for half \
            the run, then records; 'killed' records and is SIGKILLed at seeded random moments and \
            restarted, each incarnation in a session of its own; 'batch' appends whole batches of \
            25 with EventLog.append. Readers check, in each snapshot of the log, that every \
            writer's actions are a run of consecutive numbers in seq order (retention removes the \
            oldest), the batch writer's in whole batches, and that the newest seq never goes \
            back. The export loop exports the log and imports the export, which must be sound. At \
            the end: every action a writer was promised (flushed) is in the log unless retention \
            cut it, once, in order, in that writer's own session; no session id was given twice; \
            every killed incarnation's session is marked ended uncleanly, every other closed. \
            Exits 1 on any violation.
            """
    )

    @Option(help: "How long the writers write, in seconds.") var seconds = 60
    @Option(help: "Readers.") var readers = 2
    @Option(help: "Seed of the kill moments.") var seed: UInt64 = 1
    @Option(help: "The log (default: a new file in the temporary directory).") var log: String?

    func validate() throws {
        guard seconds >= 2, readers >= 0 else { throw ValidationError("--seconds is 2 or more, --readers 0 or more") }
    }

    /// A writer's numbers run in one session: its writer tag (role and incarnation) in the
    /// action, so a reader of the file alone can tell whose they are.
    static func tag(role: Int, incarnation: Int) -> Int { role * 1_000 + incarnation }

    static let roles = ["trim", "idle", "killed", "batch"]

    func run() throws {
        let folder = NSTemporaryDirectory() + "rewind-shared-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = log ?? folder + "/shared.rewind"
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        func spawn(_ arguments: [String]) throws -> Process {
            let process = Process()
            process.executableURL = executable
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            return process
        }
        func report(_ tag: Int) -> String { folder + "/writer-\(tag).txt" }
        let started = ContinuousClock.now
        let deadline = started + .seconds(seconds)
        var steady: [Int: Process] = [:]
        for (role, name) in Self.roles.enumerated() where name != "killed" {
            let tag = Self.tag(role: role, incarnation: 0)
            steady[tag] = try spawn(["shared-writer", "--log", path, "--role", name, "--tag", "\(tag)", "--seconds", "\(seconds)", "--report", report(tag)])
        }
        let readerProcesses = try (0..<readers).map { index in
            try spawn(["shared-reader", "--log", path, "--seconds", "\(seconds + 1)", "--report", folder + "/reader-\(index).txt"])
        }
        let exporter = try spawn(["shared-exporter", "--log", path, "--seconds", "\(seconds)", "--folder", folder, "--report", folder + "/exporter.txt"])

        // The killed writer: SIGKILL at seeded moments, restart, until the last quarter of the
        // run, whose incarnation ends cleanly.
        var random = SeededRandom(seed: seed)
        let killedRole = Self.roles.firstIndex(of: "killed")!
        var killed: [Int] = []
        var incarnation = 0
        var last: Process?
        while true {
            let tag = Self.tag(role: killedRole, incarnation: incarnation)
            let remaining = deadline - ContinuousClock.now
            let lastOne = remaining < .seconds(Double(seconds) / 4)
            let runFor = lastOne ? max(1, Int(remaining.components.seconds) + 1) : seconds
            let child = try spawn(["shared-writer", "--log", path, "--role", "killed", "--tag", "\(tag)", "--seconds", "\(runFor)", "--report", report(tag)])
            if lastOne { last = child; break }
            Thread.sleep(forTimeInterval: 0.2 + Double(random.int(below: 800)) / 1_000)
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            killed.append(tag)
            incarnation += 1
        }

        var failures: [String] = []
        for (tag, process) in steady.sorted(by: { $0.key < $1.key }) + [(Self.tag(role: killedRole, incarnation: incarnation), last!)] {
            process.waitUntilExit()
            if process.terminationStatus != 0 { failures.append("writer \(tag) exited with \(process.terminationStatus)") }
        }
        for (index, process) in readerProcesses.enumerated() {
            process.waitUntilExit()
            if process.terminationStatus != 0 {
                failures.append("reader \(index): " + ((try? String(contentsOfFile: folder + "/reader-\(index).txt", encoding: .utf8)) ?? "failed"))
            }
        }
        exporter.waitUntilExit()
        let exports = (try? String(contentsOfFile: folder + "/exporter.txt", encoding: .utf8)) ?? ""
        if exporter.terminationStatus != 0 { failures.append("export loop: \(exports)") }

        // What each incarnation was promised, and the session it recorded in.
        var promised: [Int: Int] = [:], sessions: [Int: Int64] = [:]
        for tag in steady.keys.sorted() + (0...incarnation).map({ Self.tag(role: killedRole, incarnation: $0) }) {
            let lines = ((try? String(contentsOfFile: report(tag), encoding: .utf8)) ?? "").split(separator: "\n")
            for line in lines {
                let words = line.split(separator: " ")
                if words.first == "session", let id = words.last.flatMap({ Int64($0) }) { sessions[tag] = id }
                if words.first == "flushed", let count = words.last.flatMap({ Int($0) }) { promised[tag] = count }
            }
        }
        let ids = Array(sessions.values)
        if Set(ids).count != ids.count { failures.append("a session id was given to two writers: \(sessions.sorted { $0.key < $1.key })") }

        let final = try SharedLog.read(path)
        for (tag, count) in promised.sorted(by: { $0.key < $1.key }) {
            let seen = final.numbers[tag] ?? []
            let first = seen.first?.n ?? count
            if seen.map(\.n) != Array(first..<(first + seen.count)) {
                failures.append("writer \(tag): its actions are not consecutive and in order")
            }
            if first + seen.count < count { failures.append("writer \(tag): promised \(count), the log ends at \(first + seen.count)") }
            if let session = sessions[tag], seen.contains(where: { $0.session != session }) {
                failures.append("writer \(tag): actions outside its session \(session)")
            }
        }
        let reader = try EventLog(path: path, mode: .readOnly)
        let endings = Dictionary(uniqueKeysWithValues: try reader.sessions().map { ($0.id, $0.ending?.kind) })
        for (tag, session) in sessions {
            let expected: SessionEnding.Kind = killed.contains(tag) ? .unclean : .closed
            // A session retention removed has nothing left to say.
            if let ending = endings[session], ending != expected {
                failures.append("writer \(tag)'s session \(session) ended \(ending.map(\.rawValue) ?? "never"), not \(expected.rawValue)")
            }
        }
        let integrity = try reader.checkIntegrity()
        if !integrity.isSound { failures.append("the log is damaged: \(integrity)") }
        let total = promised.values.reduce(0, +)
        print("""
            shared for \(seconds) s: \(Self.roles.count) writers (\(killed.count) kills), \(readers) readers; \(total) actions promised, \
            \(final.events) events in the log after retention; \(sessions.count) sessions; \
            \(exports.trimmingCharacters(in: .whitespacesAndNewlines)); failures \(failures.count)
            """)
        for failure in failures { print("FAILED: \(failure)") }
        if !failures.isEmpty { throw ExitCode(1) }
    }
}

/// What `shared` reads of the log in one transaction.
enum SharedLog {
    struct Event: Equatable {
        var n: Int
        var session: Int64
    }

    /// Every writer's numbers and sessions, in seq order, and the newest seq.
    static func read(_ path: String) throws -> (numbers: [Int: [Event]], events: Int, newest: Int64) {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        let database = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? database.close() }
        return try database.read { db in
            var numbers: [Int: [Event]] = [:]
            var events = 0, newest: Int64 = 0
            let rows = try Row.fetchCursor(db, sql: """
                SELECT seq, session_id, json_extract(payload, '$.writer') AS w, json_extract(payload, '$.n') AS n FROM events ORDER BY seq
                """)
            while let row = try rows.next() {
                events += 1
                newest = row["seq"]
                guard let writer = row["w"] as Int?, let n = row["n"] as Int? else { continue }
                numbers[writer, default: []].append(Event(n: n, session: row["session_id"]))
            }
            return (numbers, events, newest)
        }
    }
}

/// One writer of `shared`: a process with its own store and recorder (or, for 'batch', whole
/// batches appended directly). Writes `session ID` and `flushed N` lines to its report.
struct SharedWriterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "shared-writer", abstract: "(for shared) One writer.", shouldDisplay: false)

    @Option var log: String
    @Option var role: String
    @Option var tag: Int
    @Option var seconds: Int
    @Option var report: String

    func run() throws {
        _ = FileManager.default.createFile(atPath: report, contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: report))
        func say(_ line: String) { out.write(Data((line + "\n").utf8)) }
        let eventLog = try retryingWhileBusy { try EventLog(path: log) }
        let deadline = ContinuousClock.now + .seconds(seconds)
        if role == "batch" {
            let session = try retryingWhileBusy { try eventLog.beginSession(app: AppIdentity(id: "stress.batch"), initialState: 0) }
            say("session \(session.id)")
            var count = 0
            while ContinuousClock.now < deadline {
                let records = (count..<count + 25).map { EventRecord(TaggedAction(writer: tag, n: $0), source: ActionSource()) }
                _ = try retryingWhileBusy { try eventLog.append(records, to: session) }
                count += 25
                say("flushed \(count)")
            }
            try eventLog.endSession(session.id)
            return
        }
        var configuration = RecorderConfiguration<Int, TaggedAction>()
        configuration.snapshotInterval = 20
        configuration.snapshotBudget = .infinity
        if role == "trim" { configuration.retention = Retention(maxEvents: 150, checkEvery: 1) }
        let failures = Mutex<[String]>([])
        configuration.onFailure = { failure in failures.withLock { $0.append("\(failure.error)") } }
        let recorder = Recorder<Int, TaggedAction>(log: eventLog, app: AppIdentity(id: "stress.\(role)"), configuration: configuration)
        let store = Store(initialState: 0, reducer: Reducer { count, _ in count += 1 }, middleware: recorder.middleware)
        var count = 0
        func record(_ actions: Int) throws {
            for _ in 0..<actions {
                store.dispatch(TaggedAction(writer: tag, n: count))
                count += 1
            }
            try recorder.flush()
            if count == actions, let session = recorder.session { say("session \(session.id)") }
            say("flushed \(count)")
        }
        if role == "idle" {
            try record(1)
            Thread.sleep(until: Date().addingTimeInterval(Double(seconds) / 2))
        }
        while ContinuousClock.now < deadline { try record(10) }
        try recorder.close()
        if let failure = failures.withLock({ $0.first }) { throw ValidationError("the recorder failed: \(failure)") }
    }
}

/// One reader of `shared`.
struct SharedReaderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "shared-reader", abstract: "(for shared) Check snapshots of the log.", shouldDisplay: false)

    @Option var log: String
    @Option var seconds: Int
    @Option var report: String

    func run() throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        var checks = 0, newest: Int64 = 0
        func fail(_ text: String) throws -> Never {
            try? text.write(toFile: report, atomically: true, encoding: .utf8)
            throw ExitCode(1)
        }
        let batchRole = SharedLogCommand.roles.firstIndex(of: "batch")!
        while ContinuousClock.now < deadline {
            guard FileManager.default.fileExists(atPath: log), (try? EventLog(path: log, mode: .readOnly)) != nil,
                  let snapshot = try? SharedLog.read(log)
            else {
                usleep(10_000)
                continue
            }
            if snapshot.newest < newest { try fail("the newest seq went back from \(newest) to \(snapshot.newest): a seq was used twice") }
            newest = snapshot.newest
            for (writer, events) in snapshot.numbers {
                let first = events.first?.n ?? 0
                if events.map(\.n) != Array(first..<(first + events.count)) { try fail("writer \(writer)'s actions out of order or repeated in one snapshot") }
                if writer / 1_000 == batchRole, first % 25 == 0, events.count % 25 != 0 {
                    try fail("writer \(writer): a partial batch is visible (\(events.count) actions, batches of 25)")
                }
            }
            checks += 1
        }
        try "\(checks) snapshots checked".write(toFile: report, atomically: true, encoding: .utf8)
    }
}

/// The export loop of `shared`: exports the log being written and imports the export, over and
/// over; each import must be sound and hold every writer's actions in order.
struct SharedExporterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "shared-exporter", abstract: "(for shared) Export and import in a loop.", shouldDisplay: false)

    @Option var log: String
    @Option var seconds: Int
    @Option var folder: String
    @Option var report: String

    func run() throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        var loops = 0
        while ContinuousClock.now < deadline {
            guard let reader = try? EventLog(path: log, mode: .readOnly) else {
                usleep(10_000)
                continue
            }
            let export = URL(fileURLWithPath: folder + "/export.jsonl"), imported = folder + "/imported.rewind"
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: imported + suffix) }
            try reader.export(to: export)
            let copy = try EventLog.importLog(from: export, to: imported)
            let integrity = try copy.checkIntegrity()
            try copy.close()
            guard integrity.isSound else {
                try "import \(loops + 1) is damaged: \(integrity)".write(toFile: report, atomically: true, encoding: .utf8)
                throw ExitCode(1)
            }
            for (writer, events) in try SharedLog.read(imported).numbers {
                let first = events.first?.n ?? 0
                guard events.map(\.n) == Array(first..<(first + events.count)) else {
                    try "import \(loops + 1): writer \(writer)'s actions out of order".write(toFile: report, atomically: true, encoding: .utf8)
                    throw ExitCode(1)
                }
            }
            loops += 1
        }
        try "\(loops) exports imported".write(toFile: report, atomically: true, encoding: .utf8)
    }
}

/// Runs `body` until it is not refused with SQLITE_BUSY (another writer held the lock past the
/// busy timeout, which a loaded machine can make happen; nothing was written).
func retryingWhileBusy<T>(_ body: () throws -> T) throws -> T {
    while true {
        do {
            return try body()
        } catch let error as EventLogError {
            guard case let .sqlite(_, code, _, _) = error, code & 0xFF == 5 else { throw error }
        }
    }
}
