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

/// The black box end to end, as an app meets it: a child (`rewind-stress crash`) records with
/// the team's public key configured, commits 5 actions, hands off 3 more and crashes; the next
/// launch finds the session crashed and seals exactly one report into the outbox, which the
/// team's private key opens and replays to the state the child printed.
@Suite("Crash reports")
struct CrashReportTests {
    static let app = AppIdentity(id: "com.example.crash")
    static let sum = Reducer<Int, Int> { total, value in total += value }

    let folder: TemporaryDirectory
    let keys: (publicKey: ReportKey, privateKey: LogKey)
    var log: String { folder.file("crash.rewind") }
    var outbox: ReportOutbox { ReportOutbox(besideLog: log) }

    init() throws {
        folder = try TemporaryDirectory()
        keys = try ReportKey.generate(id: "team")
        try (keys.publicKey.line + "\n").write(toFile: folder.file("team.pub"), atomically: true, encoding: .utf8)
    }

    /// Runs the child with the key; `how` ends it.
    func launch(_ how: String, committed: Int = 5, pending: Int = 0, withKey: Bool = true, suspended: Bool = false) async throws -> ProcessOutput {
        try await run(
            builtProduct("rewind-stress"),
            ["crash", "--log", log, "--how", how, "--committed", "\(committed)", "--pending", "\(pending)"]
                + (withKey ? ["--report-key-file", folder.file("team.pub")] : []) + (suspended ? ["--suspend"] : []),
            environment: ["SWIFT_BACKTRACE": "enable=no"], timeout: 120
        )
    }

    @Test("a crash becomes one report at the next launch: reason, trigger, mark, and the committed state", arguments: [
        ("segv", "SIGSEGV"), ("fatal", CrashReportTests.trapName), ("abort", "SIGABRT"),
    ])
    func crashReported(how: String, signal: String) async throws {
        let crash = try await launch(how, pending: 3)
        #expect(crash.signaled && crash.standardOutput.contains("committed 5 15"), "\(crash.standardOutput)\(crash.standardError)")
        #expect(outbox.reports().isEmpty)
        let next = try await launch("none", committed: 0)
        #expect(next.status == 0, "\(next.standardError)")
        let reports = outbox.reports()
        try #require(reports.count == 1, "\(reports)")
        let report = try FieldReport(contentsOf: reports[0].path)
        #expect(report.header.reason == ReportReason(kind: .crash, name: signal) && report.header.app.id == Self.app.id)
        let recorded = try EventLog(path: log, mode: .readOnly)
        #expect(report.header.triggerAction == (try recorded.event(at: 5)).actionCase)
        #expect(report.header.triggerSource == (try recorded.event(at: 5)).source)

        let (opened, details) = try EventLog.openingReport(at: reports[0].path, keys: LogKeys(others: [keys.privateKey]))
        #expect(details.triggerSeq == 5 && details.session == 1 && details.ending?.kind == .crashed)
        #expect(details.ending?.crash?.uncommitted == 3 && details.ending?.crash?.signalName == signal)
        #expect(try opened.restoredState(app: Self.app, reducer: Self.sum) == 15)
        // A later launch finds nothing new: still one report.
        _ = try await launch("none", committed: 0)
        #expect(outbox.reports().count == 1)
        #expect(try (FileManager.default.attributesOfItem(atPath: outbox.folder.path)[.posixPermissions] as? Int) == 0o700)
        #expect(try (FileManager.default.attributesOfItem(atPath: reports[0].path)[.posixPermissions] as? Int) == 0o600)
    }

    static let trapName = {
        #if arch(x86_64)
        "SIGILL"
        #else
        "SIGTRAP"
        #endif
    }()

    @Test("SIGKILL (a system kill, a suspended app ended) is no crash: no report")
    func killedIsNoCrash() async throws {
        let killed = try await launch("kill", pending: 3)
        #expect(killed.signaled && killed.status == SIGKILL)
        _ = try await launch("none", committed: 0)
        #expect(try EventLog(path: log, mode: .readOnly).sessions().first?.ending?.kind == .unclean)
        #expect(outbox.reports().isEmpty)
    }

    @Test("an app suspended, then ended by the system (SIGKILL), is no crash: its session ended suspended, no report")
    func suspendedThenKilled() async throws {
        let killed = try await launch("kill", suspended: true)
        #expect(killed.signaled && killed.status == SIGKILL && killed.standardOutput.contains("committed 5 15"), "\(killed)")
        _ = try await launch("none", committed: 0)
        let first = try #require(try EventLog(path: log, mode: .readOnly).sessions().first)
        #expect(first.ending?.kind == .suspended && first.ending?.seq == 5, "\(String(describing: first.ending))")
        #expect(outbox.reports().isEmpty && outbox.heldReports().isEmpty)
    }

    @Test("without a key configured, a crash is marked and no report is made")
    func noKeyNoReport() async throws {
        _ = try await launch("segv", pending: 1, withKey: false)
        _ = try await launch("none", committed: 0, withKey: false)
        #expect(try EventLog(path: log, mode: .readOnly).sessions().first?.ending?.kind == .crashed)
        #expect(!FileManager.default.fileExists(atPath: outbox.folder.path))
    }

    @Test("a second crash while the first is reported loses no earlier report")
    func secondCrash() async throws {
        _ = try await launch("segv", pending: 2)
        // The next launch reports the first crash, then crashes itself.
        let second = try await launch("abort", committed: 2, pending: 1)
        #expect(second.signaled)
        #expect(outbox.reports().count == 1)
        _ = try await launch("none", committed: 0)
        let reports = try outbox.reports().map { try FieldReport(contentsOf: $0.path).header.reason.name }
        #expect(reports == ["SIGSEGV", "SIGABRT"])
    }
}

/// The outbox's promises: owner-only, bounded in count and bytes with drops counted, expiry,
/// and a write that fails (a full disk) leaves the earlier reports and no half report.
@Suite("Report outbox")
struct ReportOutboxTests {
    @Test("bounded in count and bytes: the oldest go first, counted; the newest always stays")
    func bounds() throws {
        let folder = try TemporaryDirectory()
        var outbox = ReportOutbox(folder: URL(fileURLWithPath: folder.file("outbox")))
        outbox.maxCount = 5
        outbox.maxBytes = 10_000
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        var added: [URL] = []
        for index in 0..<8 { added.append(try outbox.add(Data(repeating: UInt8(index), count: 1_000), now: start + Double(index))) }
        #expect(outbox.reports() == Array(added.suffix(5)) && outbox.dropped == 3)
        // Bytes: a 7,000-byte report leaves room for three of 1,000.
        let large = try outbox.add(Data(count: 7_000), now: start + 10)
        #expect(outbox.reports() == Array(added.suffix(3)) + [large] && outbox.dropped == 5)
        // One larger than the bound alone is kept: the newest is never dropped for its size.
        let huge = try outbox.add(Data(count: 20_000), now: start + 11)
        #expect(outbox.reports() == [huge] && outbox.dropped == 9)
        outbox.delivered(huge)
        #expect(outbox.reports().isEmpty && outbox.dropped == 9)
    }

    @Test("reports older than maxAge expire, counted; a killed writer's temporary file is removed")
    func expiryAndLeftovers() throws {
        let folder = try TemporaryDirectory()
        var outbox = ReportOutbox(folder: URL(fileURLWithPath: folder.file("outbox")))
        outbox.maxAge = 3600
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let old = try outbox.add(Data(count: 10), now: start)
        let recent = try outbox.add(Data(count: 10), now: start + 3000)
        outbox.removeExpired(now: start + 3601)
        #expect(outbox.reports() == [recent] && outbox.dropped == 1 && !FileManager.default.fileExists(atPath: old.path))
        // A leftover of a process that is gone (pid 2^22 + 1 is above Linux's largest) and one of a live process.
        let dead = outbox.folder.appendingPathComponent("x.rwreport.4194305.partial")
        let live = outbox.folder.appendingPathComponent("y.rwreport.\(getpid()).partial")
        for file in [dead, live] { try Data(count: 5).write(to: file) }
        try outbox.add(Data(count: 10), now: start + 3002)
        #expect(!FileManager.default.fileExists(atPath: dead.path) && FileManager.default.fileExists(atPath: live.path))
        #expect(outbox.reports().count == 2)
    }

    @Test("a write that fails midway (the disk full) leaves the earlier reports whole and no half report")
    func failedWrite() async throws {
        let folder = try TemporaryDirectory()
        let outbox = ReportOutbox(folder: URL(fileURLWithPath: folder.file("outbox")))
        let earlier = try outbox.add(Data(repeating: 1, count: 3_000))
        let stress = builtProduct("rewind-stress")
        let failed = try await run(stress, ["outbox-fill", "--folder", outbox.folder.path, "--bytes", "100000", "--file-limit", "8192"])
        #expect(failed.standardOutput.hasPrefix("failed ") && failed.standardOutput.contains("cannot write a report to the outbox"), "\(failed.standardOutput)")
        #expect(outbox.reports() == [earlier] && fileBytes(earlier.path) == Data(repeating: 1, count: 3_000))
        #expect(try FileManager.default.contentsOfDirectory(atPath: outbox.folder.path).filter { $0.hasSuffix(".partial") }.isEmpty)
        let fits = try await run(stress, ["outbox-fill", "--folder", outbox.folder.path, "--bytes", "4000", "--file-limit", "8192"])
        #expect(fits.standardOutput.hasPrefix("added "))
        #expect(outbox.reports().count == 2)
    }
}
