import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import RewindLog
import RewindTestSupport
import Testing

/// The crash hook, as an app meets it: a child process (`rewind-stress crash`) records with the
/// recorder's defaults, commits 5 actions, hands off 3 more, and crashes; the next launch marks
/// its session. Swift's backtracer is off in most (it takes seconds to symbolicate a debug
/// build), on in the tests that say so.
@Suite("Crash marks")
struct CrashMarkTests {
    /// Swift's runtime traps with an undefined instruction on x86_64 and a breakpoint on arm64.
    static let trapSignal = {
        #if arch(x86_64)
        SIGILL
        #else
        SIGTRAP
        #endif
    }()

    /// Records, crashes as `how`, launches again; returns the first session and the child's run.
    static func crashed(
        _ how: String, extra: [String] = [], pending: Int = 3, backtracer: Bool = false, folder: TemporaryDirectory
    ) async throws -> (session: LogSession, crash: ProcessOutput, path: String) {
        let path = folder.file("crash.rewind")
        let environment = backtracer ? ["SWIFT_BACKTRACE": "enable=yes"] : ["SWIFT_BACKTRACE": "enable=no"]
        let crash = try await run(
            builtProduct("rewind-stress"), ["crash", "--log", path, "--how", how, "--committed", "5", "--pending", "\(pending)"] + extra,
            environment: environment, timeout: 120
        )
        #expect(crash.standardOutput.contains("committed 5 15"), "\(crash.standardOutput)\(crash.standardError)")
        // The next launch, which marks the sessions of the one before.
        let next = try await run(builtProduct("rewind-stress"), ["crash", "--log", path, "--how", "none", "--committed", "0"], timeout: 120)
        #expect(next.status == 0, "\(next.standardOutput)\(next.standardError)")
        let log = try EventLog(path: path, mode: .readOnly)
        let sessions = try log.sessions()
        #expect(sessions.count == 2)
        #expect(sessions.last?.ending?.kind == .closed)
        let first = try #require(sessions.first)
        // What was committed replays to the state the child printed: 1 + 2 + … + 5.
        var cursor = log.events(EventFilter(session: first.id))
        let codec = try #require(log.codecs[first.codec])
        #expect(try cursor.collect().map { try $0.decodeAction(as: Int.self, codec: codec, path: path) }.reduce(0, +) == 15)
        return (first, crash, path)
    }

    /// The mark's common fields: the image and build id of the binary, the loss, the position.
    static func expectMark(
        _ session: LogSession, signal: Int32, crash: ProcessOutput, pending: Int64 = 3, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(session.ending?.kind == .crashed, "\(String(describing: session.ending))", sourceLocation: sourceLocation)
        let mark = try #require(session.ending?.crash, sourceLocation: sourceLocation)
        #expect(mark.signal == signal, "\(mark.summary)", sourceLocation: sourceLocation)
        #expect(mark.uncommitted == pending && mark.lastSeq == 5 && session.ending?.seq == 5, "\(mark)", sourceLocation: sourceLocation)
        // The last action reduced: the last pending one, from the line the child printed (or,
        // with none pending, the last committed one, from the loop before it).
        let pendingLine = try #require(
            crash.standardOutput.split(separator: "\n").first { $0.hasPrefix("pending at ") }.flatMap { UInt($0.dropFirst(11)) },
            sourceLocation: sourceLocation
        )
        let last = try #require(mark.lastReduced, "\(mark)", sourceLocation: sourceLocation)
        #expect(last.file == "rewind_stress/CrashCommand.swift" && last.column > 0 && last.origin == .call, "\(last)", sourceLocation: sourceLocation)
        #expect(last.committed == (pending == 0) && (pending == 0 ? last.line < pendingLine : last.line == pendingLine), "\(last)", sourceLocation: sourceLocation)
        // The image holding the instruction: the app's binary for its own bad pointer, the C
        // library for abort(), Swift's runtime for its traps.
        #if os(Linux)
        #expect(mark.image?.hasPrefix("/") == true, "\(mark)", sourceLocation: sourceLocation)
        #expect((mark.buildID?.count ?? 0) >= 16 && mark.imageOffset != nil && mark.instruction != 0, "\(mark)", sourceLocation: sourceLocation)
        #endif
        // Stamped while the child ran (a second's slack for the clock's steps); not "near now":
        // on a loaded machine the test's task may resume minutes after the child ended.
        #expect(mark.time >= crash.span.lowerBound - 1 && mark.time <= crash.span.upperBound + 1, "\(mark.time) against \(crash.span)", sourceLocation: sourceLocation)
    }

    @Test("a bad pointer: the session ends crashed with SIGSEGV at the faulting address, its image, build id and the 3 actions never committed")
    func badPointer() async throws {
        let folder = try TemporaryDirectory()
        let (session, crash, _) = try await Self.crashed("segv", folder: folder)
        #expect(crash.signaled && crash.status == SIGSEGV)
        try Self.expectMark(session, signal: SIGSEGV, crash: crash)
        let mark = try #require(session.ending?.crash)
        #expect(mark.address == 16)
        #if os(Linux)
        #expect(mark.image == URL(fileURLWithPath: builtProduct("rewind-stress")).resolvingSymlinksInPath().path)
        #endif
    }

    @Test("fatalError and a failed precondition: the runtime's trap is marked", arguments: ["fatal", "trap"])
    func runtimeTraps(how: String) async throws {
        let folder = try TemporaryDirectory()
        let (session, crash, _) = try await Self.crashed(how, folder: folder)
        #expect(crash.signaled && crash.status == Self.trapSignal, "\(crash.status) \(crash.standardError)")
        try Self.expectMark(session, signal: Self.trapSignal, crash: crash)
    }

    @Test("abort(): SIGABRT is marked, and the process still ends by it")
    func abortCall() async throws {
        let folder = try TemporaryDirectory()
        let (session, crash, _) = try await Self.crashed("abort", folder: folder)
        #expect(crash.signaled && crash.status == SIGABRT)
        try Self.expectMark(session, signal: SIGABRT, crash: crash)
    }

    @Test("with Swift's backtracer on, it still prints its backtrace and the session is marked", arguments: ["segv", "fatal"])
    func withBacktracer(how: String) async throws {
        let folder = try TemporaryDirectory()
        let (session, crash, _) = try await Self.crashed(how, backtracer: true, folder: folder)
        #expect(crash.signaled, "\(crash.status)")
        // Whole: it ran to its end (the mark's handler hands the signal on unblocked, as the
        // backtracer asked; blocked, the process died halfway through its backtrace).
        #if os(Linux)
        #expect(crash.standardError.contains("Program crashed") && crash.standardError.contains("Backtrace took"), "\(crash.standardError.suffix(500))")
        #endif
        try Self.expectMark(session, signal: how == "segv" ? SIGSEGV : Self.trapSignal, crash: crash)
    }

    @Test("a handler installed before the recorder's still runs, after the mark is written", arguments: ["segv", "abort"])
    func earlierHandler(how: String) async throws {
        let folder = try TemporaryDirectory()
        let signal = how == "segv" ? SIGSEGV : SIGABRT
        let (session, crash, _) = try await Self.crashed(how, extra: ["--earlier-handler"], folder: folder)
        #expect(crash.signaled && crash.status == signal)
        #expect(crash.standardError.contains("earlier handler \(signal)"), "\(crash.standardError)")
        try Self.expectMark(session, signal: signal, crash: crash)
    }

    @Test("the last action reduced: its source always, its case once the writer has named it (with none pending, the last committed)")
    func lastReduced() async throws {
        let folder = try TemporaryDirectory()
        // A burst: its source is known (`expectMark`); its case only if the writer, woken by the
        // burst's first action, happened to wake after the last.
        let (burst, burstCrash, _) = try await Self.crashed("segv", folder: folder)
        try Self.expectMark(burst, signal: SIGSEGV, crash: burstCrash)
        let summary = burst.ending?.crash?.summary ?? ""
        #expect(summary.contains("; last reduced: ") && summary.contains(" from rewind_stress/CrashCommand.swift:"), "\(summary)")
        // One action, and a moment for the writer: named.
        let single = try TemporaryDirectory()
        let (named, namedCrash, _) = try await Self.crashed("segv", extra: ["--pause", "0.5"], pending: 1, folder: single)
        try Self.expectMark(named, signal: SIGSEGV, crash: namedCrash, pending: 1)
        #expect(named.ending?.crash?.lastReduced?.actionCase == "Int", "\(String(describing: named.ending?.crash))")
        // None pending: the last committed action, named when its batch was taken.
        let none = try TemporaryDirectory()
        let (committed, committedCrash, _) = try await Self.crashed("abort", pending: 0, folder: none)
        try Self.expectMark(committed, signal: SIGABRT, crash: committedCrash, pending: 0)
        #expect(committed.ending?.crash?.lastReduced?.actionCase == "Int")
        #expect(committed.ending?.crash?.summary.contains("never committed") == false)
    }

    @Test("SIGKILL leaves no mark: the session ends unclean, not crashed")
    func killed() async throws {
        let folder = try TemporaryDirectory()
        let (session, crash, _) = try await Self.crashed("kill", folder: folder)
        #expect(crash.signaled && crash.status == SIGKILL)
        #expect(session.ending?.kind == .unclean && session.ending?.crash == nil)
    }

    @Test("with crashMarks off, nothing is installed and a crash ends the session unclean")
    func marksOff() async throws {
        let folder = try TemporaryDirectory()
        let (session, crash, _) = try await Self.crashed("segv", extra: ["--no-crash-marks"], folder: folder)
        #expect(crash.signaled && crash.status == SIGSEGV)
        #expect(session.ending?.kind == .unclean && session.ending?.crash == nil)
    }

    @Test("a crashed session's mark survives export and import, and rewind sessions shows it")
    func exportedAndListed() async throws {
        let folder = try TemporaryDirectory()
        let (session, _, path) = try await Self.crashed("segv", folder: folder)
        let exported = folder.file("crash.jsonl"), imported = folder.file("imported.rewind")
        let export = try await run(builtProduct("rewind"), ["export", path, "--output", exported])
        #expect(export.status == 0, "\(export.standardError)")
        let importing = try await run(builtProduct("rewind"), ["import", exported, "--output", imported])
        #expect(importing.status == 0, "\(importing.standardError)")
        let copy = try #require(try EventLog(path: imported, mode: .readOnly).sessions().first)
        #expect(copy.ending == session.ending)
        let listed = try await run(builtProduct("rewind"), ["sessions", path])
        #expect(listed.standardOutput.contains("crashed (SIGSEGV"), "\(listed.standardOutput)")
    }
}
