import Foundation
import Rewind
import RewindExamples
import RewindLog
import RewindReplay

/// Every way the tools read a log, run in-process on one (possibly damaged) file: open,
/// sessions, events, statistics, check, gaps, snapshots, state, verify, bisect, export, and an
/// import of that export. Each step ends in a result or an ``EventLogError``; anything else —
/// a trap, a hang — is what the fuzzer is looking for.
struct ReadPaths {
    /// How each step ended, in order: `ok`, or the error's case.
    private(set) var outcomes: [(step: String, outcome: String)] = []
    /// Each error's message, by step and case, for a sample in the summary.
    private(set) var messages: [(key: String, message: String)] = []

    /// Runs every step on the log at `path`, writing the export and import beside it in `scratch`.
    static func run(on path: String, scratch: String) -> ReadPaths {
        var paths = ReadPaths()
        let log: EventLog
        do {
            log = try EventLog(path: path, mode: .readOnly, keys: LogKeys(others: [FuzzCommand.key]))
        } catch {
            paths.record("open", error)
            return paths
        }
        defer { try? log.close() }
        paths.record("open", nil)
        let sessions = paths.step("sessions") { () throws(EventLogError) in try log.sessions() } ?? []
        paths.step("events") { () throws(EventLogError) in
            var cursor = log.events()
            while try cursor.next() != nil {}
        }
        paths.step("statistics") { () throws(EventLogError) in _ = try log.statistics() }
        paths.step("check") { () throws(EventLogError) in _ = try log.checkIntegrity() }
        paths.step("gaps") { () throws(EventLogError) in _ = try log.gaps() }
        paths.step("range") { () throws(EventLogError) in _ = try log.seqRange() }
        let replayer = Replayer(log: log, reducer: Shop.reducer)
        for session in sessions.prefix(4) {
            paths.step("snapshots") { () throws(EventLogError) in _ = try log.snapshotIndex(session: session.id) }
            paths.step("initial state") { () throws(EventLogError) in _ = try replayer.initialState(session: session.id) }
            if let range = session.seqRange {
                paths.step("state") { () throws(EventLogError) in _ = try replayer.state(at: range.upperBound) }
                paths.step("state") { () throws(EventLogError) in _ = try replayer.state(at: range.lowerBound / 2 + range.upperBound / 2) }
            }
        }
        paths.step("state at Int64.max") { () throws(EventLogError) in _ = try replayer.state(at: .max) }
        paths.step("verify") { () throws(EventLogError) in _ = try replayer.verify() }
        paths.step("bisect") { () throws(EventLogError) in _ = try replayer.bisect(where: { $0.cart.total < 0 }) }
        let export = URL(fileURLWithPath: scratch).appendingPathComponent("export.jsonl")
        let exported = paths.step("export") { () throws(EventLogError) in try log.export(to: export) }
        if exported != nil {
            let imported = scratch + "/imported.rewind"
            paths.step("import") { () throws(EventLogError) in try EventLog.importLog(from: export, to: imported).close() }
        }
        return paths
    }

    @discardableResult
    mutating func step<T>(_ name: String, _ body: () throws(EventLogError) -> T) -> T? {
        do {
            let value = try body()
            record(name, nil)
            return value
        } catch {
            record(name, error)
            return nil
        }
    }

    mutating func record(_ step: String, _ error: EventLogError?) {
        outcomes.append((step, error.map(Self.kind(of:)) ?? "ok"))
        if let error { messages.append(("\(step): \(Self.kind(of: error))", error.description)) }
    }

    /// The error's case, for tallies (`corrupt`, `decodingFailed`, …).
    static func kind(of error: EventLogError) -> String {
        Mirror(reflecting: error).children.first?.label ?? "\(error)"
    }
}
