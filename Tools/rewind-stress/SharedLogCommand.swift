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
            writer's actions are in order and once (retention removes the oldest; a recorder's \
            loss, recorded as a gap, leaves some out), the batch writer's whole batches, and that \
            the newest seq never goes back. The export loop exports the log and imports the \
            export, which must be sound. At the end: every action a writer was promised (flushed \
            since its last failed flush) is in the log unless retention cut it, once, in order, \
            in that writer's own sessions (a session never holds two writers' actions; a killed \
            incarnation may have committed in one it was killed before reporting); what is missing \
            between its first and last kept is no more than its sessions' recorded gaps say were \
            lost; no session id was given twice; every killed incarnation's last session is marked \
            ended uncleanly (or resumed, for one it never reported), every other last session \
            closed, every earlier one resumed. A writer that flushed after a loss (a busy \
            log past the busy timeout) goes on, as an app does. \
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

        // What each incarnation said: the sessions it recorded in, and what it was promised
        // (flushed) since its last failed flush (a loss the recorder records as a gap).
        var reports: [Int: WriterReport] = [:]
        for tag in steady.keys.sorted() + (0...incarnation).map({ Self.tag(role: killedRole, incarnation: $0) }) {
            reports[tag] = WriterReport(((try? String(contentsOfFile: report(tag), encoding: .utf8)) ?? ""))
        }
        let ids = reports.values.flatMap(\.sessions)
        if Set(ids).count != ids.count { failures.append("a session id was given to two writers: \(reports.mapValues(\.sessions).sorted { $0.key < $1.key })") }

        let final = try SharedLog.read(path)
        let gaps = try EventLog(path: path, mode: .readOnly).gaps()
        // A session holds one writer's actions. (A killed incarnation may have committed in a
        // session it never got to report: only the log says whose that one is.)
        var writersOfSession: [Int64: Set<Int>] = [:]
        for (tag, events) in final.numbers {
            for event in events { writersOfSession[event.session, default: []].insert(tag) }
        }
        for (session, writers) in writersOfSession.sorted(by: { $0.key < $1.key }) where writers.count > 1 {
            failures.append("session \(session) holds the actions of writers \(writers.sorted())")
        }
        let reported = Set(reports.values.flatMap(\.sessions))
        var unreported: [Int: Set<Int64>] = [:]
        for (tag, said) in reports.sorted(by: { $0.key < $1.key }) {
            let seen = final.numbers[tag] ?? []
            let numbers = seen.map(\.n)
            if zip(numbers, numbers.dropFirst()).contains(where: { $0 >= $1 }) { failures.append("writer \(tag): its actions are out of order or repeated") }
            for event in seen where !said.sessions.contains(event.session) {
                if killed.contains(tag), !reported.contains(event.session) {
                    unreported[tag, default: []].insert(event.session)
                } else {
                    failures.append("writer \(tag): action \(event.n) is in session \(event.session), not one of its own \(said.sessions)")
                    break
                }
            }
            // Missing after the first one kept (retention takes the oldest): only what its
            // sessions' recorded gaps account for.
            let missing = (numbers.last.map { $0 + 1 - (numbers.first ?? 0) } ?? 0) - numbers.count
            let lost = gaps.filter { said.sessions.contains($0.session) || unreported[tag, default: []].contains($0.session) }.reduce(0) { $0 + $1.lost }
            if missing > lost { failures.append("writer \(tag): \(missing) actions missing between its first and last kept, \(lost) recorded lost") }
            // Everything promised since its last loss is there (unless retention cut it).
            if let promised = said.promised, let last = numbers.last, last + 1 < promised.upTo {
                failures.append("writer \(tag): promised up to \(promised.upTo), the log ends at \(last + 1)")
            }
        }
        let reader = try EventLog(path: path, mode: .readOnly)
        let endings = Dictionary(uniqueKeysWithValues: try reader.sessions().map { ($0.id, $0.ending?.kind) })
        for (tag, said) in reports {
            // Its last session ends as the writer did; any before it ended in a loss.
            for session in said.sessions {
                let expected: SessionEnding.Kind = session != said.sessions.last ? .resumed : killed.contains(tag) ? .unclean : .closed
                // A session retention removed has nothing left to say.
                if let ending = endings[session], ending != expected {
                    failures.append("writer \(tag)'s session \(session) ended \(ending.map(\.rawValue) ?? "never"), not \(expected.rawValue)")
                }
            }
            // One it was killed before reporting ended in a loss or in its death.
            for session in unreported[tag] ?? [] {
                if let ending = endings[session], ending != .resumed, ending != .unclean {
                    failures.append("writer \(tag)'s unreported session \(session) ended \(ending.map(\.rawValue) ?? "never"), not resumed or unclean")
                }
            }
        }
        let integrity = try reader.checkIntegrity()
        if !integrity.isSound { failures.append("the log is damaged: \(integrity)") }
        let total = reports.values.reduce(0) { $0 + ($1.promised?.upTo ?? 0) }
        let lostInAll = gaps.reduce(0) { $0 + $1.lost }
        print("""
            shared for \(seconds) s: \(Self.roles.count) writers (\(killed.count) kills), \(readers) readers; \(total) actions dispatched and flushed, \
            \(final.events) events in the log after retention, \(gaps.count) recorded gaps (\(lostInAll) actions); \(ids.count) sessions; \
            \(exports.trimmingCharacters(in: .whitespacesAndNewlines)); failures \(failures.count)
            """)
        for failure in failures { print("FAILED: \(failure)") }
        if !failures.isEmpty { throw ExitCode(1) }
    }
}

/// What a `shared-writer` said in its report: `session ID` when it records in a new session,
/// `flushed N` when a flush returned (every action before the N-th is written), `failed N` when
/// one threw (the recorder lost some, and records them as a gap).
struct WriterReport {
    var sessions: [Int64] = []
    /// The last promise, and the failure before it: actions from `since` up to `upTo` are written.
    var promised: (since: Int, upTo: Int)?

    init(_ text: String) {
        var failedAt = 0
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            guard words.count == 2, let number = Int(words[1]) else { continue }
            switch words[0] {
            case "session": if sessions.last != Int64(number) { sessions.append(Int64(number)) }
            case "flushed": promised = (failedAt, number)
            case "failed": failedAt = number; promised = nil
            default: break
            }
        }
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
        var lastSession: Int64?
        func record(_ actions: Int) {
            for _ in 0..<actions {
                store.dispatch(TaggedAction(writer: tag, n: count))
                count += 1
            }
            // A failed flush is a loss the recorder records as a gap, and recording goes on in
            // a new session: say so, and keep going.
            do {
                try recorder.flush()
                say("flushed \(count)")
            } catch {
                say("failed \(count)")
            }
            if let session = recorder.session?.id, session != lastSession {
                lastSession = session
                say("session \(session)")
            }
        }
        if role == "idle" {
            record(1)
            Thread.sleep(until: Date().addingTimeInterval(Double(seconds) / 2))
        }
        while ContinuousClock.now < deadline { record(10) }
        try recorder.close()
        // Losses are checked against the recorded gaps; anything else the recorder reported is not
        // expected here.
        if let failure = failures.withLock({ $0.first { !$0.contains("database is locked") } }) {
            throw ValidationError("the recorder failed: \(failure)")
        }
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
                let numbers = events.map(\.n)
                // In order and once; a recorder's loss (a gap) may leave numbers out.
                if zip(numbers, numbers.dropFirst()).contains(where: { $0 >= $1 }) { try fail("writer \(writer)'s actions out of order or repeated in one snapshot") }
                // The batch writer appends whole batches and never loses one.
                let first = numbers.first ?? 0
                if writer / 1_000 == batchRole, first % 25 == 0, numbers != Array(first..<(first + numbers.count)) || numbers.count % 25 != 0 {
                    try fail("writer \(writer): a partial batch is visible (\(numbers.count) actions, batches of 25)")
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
                let numbers = events.map(\.n)
                guard !zip(numbers, numbers.dropFirst()).contains(where: { $0 >= $1 }) else {
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
