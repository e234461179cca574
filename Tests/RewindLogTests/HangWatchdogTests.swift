import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Rewind
import RewindLog
import RewindTestSupport
import Testing

/// The hang watchdog, as an app meets it: a child process (`rewind-stress crash`) records with
/// the recorder's defaults (its hang limit lowered to 0.2 s), commits 5 actions, hands off 3
/// more, then dispatches an action whose reducer does not return.
@Suite("Hang watchdog")
struct HangWatchdogTests {
    static let limit = 0.2

    /// The line the child printed as the hanging action's, and the source it should be recorded with.
    static func hangingLine(_ output: ProcessOutput) throws -> UInt {
        let line = try #require(output.standardOutput.split(separator: "\n").first { $0.hasPrefix("hanging at ") })
        return try #require(UInt(line.dropFirst("hanging at ".count)))
    }

    /// The team's keys, the public one written where the child reads it (`team.pub`).
    static func teamKey(in folder: TemporaryDirectory) throws -> (publicKey: ReportKey, privateKey: LogKey) {
        let keys = try ReportKey.generate(id: "team")
        try keys.publicKey.line.write(toFile: folder.file("team.pub"), atomically: true, encoding: .utf8)
        return keys
    }

    @Test("a hang the process never comes out of: the next launch ends the session hung with the action's case and source, and reports it")
    func neverEnds() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("hang.rewind")
        let keys = try Self.teamKey(in: folder)
        let child = try await run(
            builtProduct("rewind-stress"),
            ["crash", "--log", path, "--how", "hang", "--committed", "5", "--pending", "3", "--hang-limit", "\(Self.limit)", "--kill-after", "1.5"],
            environment: ["SWIFT_BACKTRACE": "enable=no"], timeout: 120
        )
        #expect(child.signaled && child.status == SIGKILL, "\(child)")
        let line = try Self.hangingLine(child)
        // The next launch marks it, and seals its report.
        let next = try await run(
            builtProduct("rewind-stress"), ["crash", "--log", path, "--how", "none", "--committed", "0", "--report-key-file", folder.file("team.pub")],
            timeout: 120
        )
        #expect(next.status == 0, "\(next)")
        let log = try EventLog(path: path, mode: .readOnly)
        let first = try #require(try log.sessions().first)
        let ending = try #require(first.ending)
        #expect(ending.kind == .hung && ending.seq == 5, "\(ending)")
        let mark = try #require(ending.hang)
        #expect(mark.actionCase == "Int" && mark.source.line == line && mark.source.file.hasSuffix("CrashCommand.swift"), "\(mark)")
        #expect(mark.limit == Self.limit && mark.detected - mark.began >= Self.limit && mark.detected - mark.began < 1.5, "\(mark)")
        // Detected while the child ran (see `ProcessOutput.span`).
        #expect(mark.detected >= child.span.lowerBound - 1 && mark.detected <= child.span.upperBound + 1, "\(mark.detected) against \(child.span)")
        // One report, of the hang, replaying to what was committed.
        let reports = ReportOutbox(besideLog: path).reports()
        try #require(reports.count == 1)
        let report = try FieldReport(contentsOf: reports[0].path)
        #expect(report.header.reason == ReportReason(kind: .hang, name: "Int"))
        let (opened, details) = try EventLog.openingReport(at: reports[0].path, keys: LogKeys(others: [keys.privateKey]))
        #expect(details.ending?.hang == mark && details.lastSeq == 5)
        #expect(try opened.restoredState(app: AppIdentity(id: "com.example.crash"), reducer: Reducer<Int, Int> { $0 += $1 }) == 15)
        // The CLI says how it ended.
        let sessions = try await run(builtProduct("rewind"), ["sessions", path])
        #expect(sessions.standardOutput.contains("hung (Int)") && sessions.standardOutput.contains("session \(first.id) hung: inside Int for over"), "\(sessions)")
    }

    @Test("a hang that ends: its action is a trigger, sealed into one report; the session ends closed")
    func ends() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("hang.rewind")
        let keys = try Self.teamKey(in: folder)
        let child = try await run(
            builtProduct("rewind-stress"),
            ["crash", "--log", path, "--how", "hang-ends", "--committed", "5", "--pending", "3", "--hang-limit", "\(Self.limit)",
             "--hang-seconds", "1", "--report-key-file", folder.file("team.pub")],
            environment: ["SWIFT_BACKTRACE": "enable=no"], timeout: 120
        )
        #expect(child.status == 0 && !child.signaled, "\(child)")
        let line = try Self.hangingLine(child)
        let log = try EventLog(path: path, mode: .readOnly)
        let session = try #require(try log.sessions().first)
        #expect(session.ending?.kind == .closed && session.ending?.seq == 12)
        let reports = ReportOutbox(besideLog: path).reports()
        try #require(reports.count == 1)
        let report = try FieldReport(contentsOf: reports[0].path)
        #expect(report.header.reason == ReportReason(kind: .hang, name: "Int"))
        #expect(report.header.triggerSource?.line == line)
        let details = try report.open(with: LogKeys(others: [keys.privateKey])).details
        // 5 committed, 3 pending (6…8), the hung action (9), 3 after it (10…12).
        #expect(details.triggerSeq == 9 && details.lastSeq == 12, "\(details)")
    }

    @Test("no hang, no mark: a store quicker than the limit, and a store idle far longer than it, leave nothing")
    func quickStore() async throws {
        let folder = try TemporaryDirectory()
        let keys = try ReportKey.generate(id: "team")
        var configuration = RecorderConfiguration<Int, Int>()
        configuration.hangLimit = .milliseconds(100)
        configuration.reports = ReportOptions(key: keys.publicKey)
        let recorder = Recorder<Int, Int>(log: try EventLog(path: folder.file("quick.rewind")), app: AppIdentity(id: "com.example.quick"), configuration: configuration)
        let store = Store(initialState: 0, reducer: Reducer<Int, Int> { $0 += $1 }, middleware: recorder.middleware)
        for value in 0..<10_000 { store.dispatch(value) }
        try await Task.sleep(for: .milliseconds(500))  // idle: the watchdog parks
        for value in 0..<10 {
            store.dispatch(value)
            try await Task.sleep(for: .milliseconds(30))
        }
        try await recorder.close()
        #expect(recorder.outbox?.reports().isEmpty ?? true)
        #expect(try EventLog(path: folder.file("quick.rewind"), mode: .readOnly).sessions().first?.ending?.kind == .closed)
    }

    @Test("actions ending around the limit, many times: the hang reported is one of them, nothing stalls or is lost")
    func hangsAtTheLimit() async throws {
        let folder = try TemporaryDirectory()
        let keys = try ReportKey.generate(id: "team")
        var configuration = RecorderConfiguration<Int, Int>()
        // Looked at every 10 ms: actions of 10 to 40 ms are found hung as they end, or just
        // after, or not at all — the watchdog copies the action as the store moves on.
        configuration.hangLimit = .milliseconds(20)
        configuration.reports = ReportOptions(key: keys.publicKey)
        let path = folder.file("limit.rewind")
        let recorder = Recorder<Int, Int>(log: try EventLog(path: path), app: AppIdentity(id: "com.example.limit"), configuration: configuration)
        let store = Store(initialState: 0, reducer: Reducer<Int, Int> { state, value in
            if value % 50 == 7 {
                // One of them far past the limit, so that one is found however busy the machine.
                let clock = ContinuousClock(), until = clock.now + .milliseconds(value == 1_007 ? 300 : 10 + value % 31)
                while clock.now < until {}
            }
            state &+= value
        }, middleware: recorder.middleware)
        for value in 0..<2_000 { store.dispatch(value) }
        try await recorder.close()
        let log = try EventLog(path: path, mode: .readOnly)
        var cursor = log.events()
        let events = try cursor.collect()
        let ending = try log.sessions().first?.ending?.kind
        #expect(events.count == 2_000 && ending == .closed)
        // One is found (the 300 ms one, if none before it), and seals the session's one report,
        // whose trigger is a slow action.
        let reports = try #require(recorder.outbox).reports()
        #expect(reports.count == 1)
        for entry in reports {
            let report = try FieldReport(contentsOf: entry.path)
            let details = try report.open(with: LogKeys(others: [keys.privateKey])).details
            let trigger = try #require(events.first { $0.seq == details.triggerSeq })
            #expect(try JSONDecoder().decode(Int.self, from: try #require(trigger.payload)) % 50 == 7, "\(details)")
        }
    }
}

extension HangWatchdogTests {
    struct Refused: Error {}

    @Test("a tap whose reducer throws has left the action: an idle store after it is no hang")
    func throwingTap() async throws {
        let folder = try TemporaryDirectory()
        var configuration = RecorderConfiguration<Int, Int>()
        configuration.hangLimit = .milliseconds(100)
        let recorder = Recorder<Int, Int>(log: try EventLog(path: folder.file("tap.rewind")), app: AppIdentity(id: "com.example.tap"), configuration: configuration)
        let tap = recorder.tap(initialState: 0)
        var state = 0
        tap.record(1, from: ActionSource(), reducing: &state) { $0 += 1 }
        #expect(throws: Refused.self) { try tap.record(2, from: ActionSource(), reducing: &state) { _ in throw Refused() } }
        _ = await recorder.currentSession()
        try await Task.sleep(for: .milliseconds(600))
        // The live session's lock file holds no hang mark.
        let locks = folder.file("tap.rewind-sessions")
        let files = try FileManager.default.contentsOfDirectory(atPath: locks)
        #expect(files.count == 1)
        for file in files {
            #expect(HangMark(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: locks + "/" + file)))) == nil)
        }
        try await recorder.close()
        #expect(try EventLog(path: folder.file("tap.rewind"), mode: .readOnly).sessions().first?.ending?.kind == .closed)
    }
}
