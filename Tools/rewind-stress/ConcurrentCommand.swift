import ArgumentParser
import Foundation
import GRDB
import Rewind
import RewindLog

/// Several writer and reader processes on one log at once.
struct ConcurrentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "concurrent",
        abstract: "Run writer and reader processes on one log at once; check order, exactly-once and atomic batches.",
        discussion: """
            Each writer process records numbered actions in batches of --batch, one transaction \
            each, into its own session. Each reader process checks, over and over, in one read \
            transaction, that every writer's actions it sees are 0, 1, 2, … in seq order and a \
            whole number of batches (never a torn or partial batch). At the end every writer's \
            actions must be in the log exactly once, in its order. Exits 1 on any violation.
            """
    )

    @Option(help: "Writer processes.") var writers = 4
    @Option(help: "Reader processes.") var readers = 2
    @Option(help: "How long the writers write, in seconds.") var seconds = 30
    @Option(help: "Actions per transaction.") var batch = 25
    @Option(help: "The log (default: a new file in the temporary directory).") var log: String?

    func validate() throws {
        guard writers > 0, readers >= 0, seconds > 0, batch > 0 else {
            throw ValidationError("--writers, --seconds and --batch must be positive, --readers at least 0")
        }
    }

    func run() throws {
        let path = log ?? NSTemporaryDirectory() + "rewind-concurrent-\(UUID().uuidString).rewind"
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        func spawn(_ arguments: [String]) throws -> (Process, Pipe) {
            let process = Process()
            process.executableURL = executable
            process.arguments = arguments
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            return (process, output)
        }
        // All at once, so they also race to create the file.
        let writerProcesses = try (0..<writers).map { index in
            try spawn(["tagged-writer", "--log", path, "--writer", "\(index)", "--batch", "\(batch)", "--seconds", "\(seconds)"])
        }
        let readerProcesses = try (0..<readers).map { _ in
            try spawn(["tagged-reader", "--log", path, "--batch", "\(batch)", "--seconds", "\(seconds + 1)"])
        }
        var written: [Int: Int] = [:]
        var failed = false
        for (index, (process, output)) in writerProcesses.enumerated() {
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            guard process.terminationStatus == 0, let count = Int(text.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") else {
                print("writer \(index) failed (status \(process.terminationStatus)): \(text)")
                failed = true
                continue
            }
            written[index] = count
        }
        var checks = 0
        for (index, (process, output)) in readerProcesses.enumerated() {
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            if process.terminationStatus != 0 { print("reader \(index) failed: \(text)"); failed = true }
            checks += Int(text.split(separator: " ").first.map(String.init) ?? "") ?? 0
        }
        // Every writer's actions, exactly once, in its order.
        let final = try TaggedLog.read(path)
        for writer in 0..<writers {
            // (A writer that failed has already been reported.)
            guard let count = written[writer] else { continue }
            let seen = final[writer] ?? []
            if seen != Array(0..<count) {
                print("writer \(writer): wrote \(written[writer] ?? 0), the log holds \(seen.count), \(seen == seen.sorted() ? "in order" : "out of order")")
                failed = true
            }
        }
        let report = try EventLog(path: path, mode: .readOnly).checkIntegrity()
        if !report.isSound { print("the log is damaged: \(report)"); failed = true }
        let total = written.values.reduce(0, +)
        print("""
            \(writers) writers and \(readers) readers for \(seconds) s: \(total) actions in batches of \(batch) \
            (\(written.keys.sorted().map { "\(written[$0] ?? 0)" }.joined(separator: " + "))); \
            \(checks) reader snapshots checked; \(failed ? "FAILED" : "failures 0"); \(report)
            """)
        if failed { throw ExitCode(1) }
    }
}

/// The numbered actions the concurrent run records: who wrote it, and its number.
struct TaggedAction: Codable, Sendable {
    var writer: Int
    var n: Int
}

enum TaggedLog {
    /// Every writer's numbers, in seq order, read in one transaction (one consistent snapshot).
    static func read(_ path: String) throws -> [Int: [Int]] {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        let database = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? database.close() }
        return try database.read { db in
            var numbers: [Int: [Int]] = [:]
            let rows = try Row.fetchCursor(db, sql: "SELECT json_extract(payload, '$.writer') AS w, json_extract(payload, '$.n') AS n FROM events ORDER BY seq")
            while let row = try rows.next() {
                numbers[row["w"] as Int, default: []].append(row["n"])
            }
            return numbers
        }
    }
}

/// One writer of `concurrent`.
struct TaggedWriterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "tagged-writer", abstract: "(for concurrent) Append numbered actions in batches.", shouldDisplay: false)

    @Option var log: String
    @Option var writer: Int
    @Option var batch: Int
    @Option var seconds: Int

    func run() throws {
        let eventLog = try retryingWhileBusy { try EventLog(path: log) }
        let session = try retryingWhileBusy {
            try eventLog.beginSession(app: AppIdentity(id: "com.example.stress.writer\(writer)"), initialState: 0)
        }
        let deadline = ContinuousClock.now + .seconds(seconds)
        var count = 0
        while ContinuousClock.now < deadline {
            let records = (count..<count + batch).map { EventRecord(TaggedAction(writer: writer, n: $0), source: ActionSource()) }
            _ = try retryingWhileBusy { try eventLog.append(records, to: session) }
            count += batch
        }
        try eventLog.close()
        print("writer \(writer) wrote \(count)")
    }
}

/// One reader of `concurrent`.
struct TaggedReaderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "tagged-reader", abstract: "(for concurrent) Check snapshots of the log while it is written.", shouldDisplay: false)

    @Option var log: String
    @Option var batch: Int
    @Option var seconds: Int

    func run() throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        var checks = 0
        while ContinuousClock.now < deadline {
            guard FileManager.default.fileExists(atPath: log), (try? EventLog(path: log, mode: .readOnly)) != nil else {
                usleep(10_000)
                continue
            }
            for (writer, numbers) in try TaggedLog.read(log) {
                guard numbers == Array(0..<numbers.count) else {
                    print("writer \(writer)'s actions out of order or repeated in one snapshot")
                    throw ExitCode(1)
                }
                guard numbers.count % batch == 0 else {
                    print("writer \(writer): a partial batch is visible (\(numbers.count) actions, batches of \(batch))")
                    throw ExitCode(1)
                }
            }
            checks += 1
        }
        print("\(checks) snapshots checked")
    }
}
