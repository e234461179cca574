import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Rewind
import RewindLog

/// An app that records and then crashes, the way the crash hook must see: the child process of
/// the black box's tests.
struct CrashCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crash",
        abstract: "(for tests) Record actions into a log with the recorder's defaults, then end the process as asked.",
        discussion: """
            Dispatches --committed actions and flushes them, prints `committed N STATE` (how many and
            the state after them) and `pending at LINE`, dispatches --pending more without a flush \
            from that line, \
            then ends: `fatal` (fatalError), `segv` (a write through a bad pointer), `abort`, \
            `trap` (a failed precondition), `kill` (SIGKILL), `hang` (an action whose reducer never \
            returns, until the process kills itself with SIGKILL after --kill-after seconds, as a \
            system's watchdog would), `hang-ends` (an action whose reducer takes --hang-seconds, then \
            a clean close), or `none` (closes the recorder and exits 0: a later launch, which marks \
            the sessions of earlier ones). Before the hanging action it prints `hanging at LINE`, \
            the line it is dispatched from.
            """,
        shouldDisplay: false
    )

    enum Ending: String, ExpressibleByArgument, CaseIterable {
        case fatal, segv, abort, trap, kill, hang, hangEnds = "hang-ends", none
    }

    @Option var log: String
    @Option var how: Ending
    @Option var committed = 5
    @Option var pending = 0
    @Flag(help: "Install a SIGSEGV, SIGABRT, SIGILL and SIGTRAP handler before the recorder's; it prints `earlier handler SIGNAL` to standard error.")
    var earlierHandler = false
    @Flag(help: "Record without crash marks.") var noCrashMarks = false
    @Option(help: "Seal reports of crashed sessions to the public key in this file (`ID BASE64`), into the log's outbox.")
    var reportKeyFile: String?
    @Flag(help: "Suspend the recorder (as an app going to the background) after the committed actions, before ending.")
    var suspend = false
    @Option(help: "The hang watchdog's limit, in seconds (the recorder's default when not given).")
    var hangLimit: Double?
    @Option(help: "How long the `hang-ends` action takes, in seconds.") var hangSeconds = 1.0
    @Option(help: "When `hang` kills the process, in seconds after the hanging action began.") var killAfter = 2.0
    @Option(help: "Seconds to wait after the pending actions before ending (the recorder's writer names the newest meanwhile).")
    var pause = 0.0

    func run() throws {
        if earlierHandler { installEarlierHandler() }
        var configuration = RecorderConfiguration<Int, Int>()
        configuration.crashMarks = !noCrashMarks
        if let reportKeyFile {
            let line = try String(contentsOfFile: reportKeyFile, encoding: .utf8)
            configuration.reports = ReportOptions(key: try ReportKey(line: line))
        }
        if let hangLimit { configuration.hangLimit = .milliseconds(Int(hangLimit * 1_000)) }
        // The pending actions must stay pending: the writer waits for a flush or a long delay.
        configuration.durability = .buffered(maxDelay: .seconds(3600))
        configuration.batchSize = 1_000_000
        let recorder = Recorder<Int, Int>(log: try EventLog(path: log), app: AppIdentity(id: "com.example.crash"), configuration: configuration)
        // -1 never returns; -2 takes --hang-seconds.
        let hangSeconds = self.hangSeconds
        let reducer = Reducer<Int, Int> { total, value in
            if value == -1 { while true { sleep(60) } }
            if value == -2 { usleep(useconds_t(hangSeconds * 1_000_000)) } else { total += value }
        }
        let store = Store(initialState: 0, reducer: reducer, middleware: recorder.middleware)
        for value in 1...max(1, committed) where committed > 0 { store.dispatch(value) }
        try recorder.flush()
        if suspend { try recorder.suspend() }
        // Written at once, unbuffered: the process is about to crash.
        FileHandle.standardOutput.write(Data("committed \(committed) \(store.state)\n".utf8))
        FileHandle.standardOutput.write(Data("pending at \(#line + 1)\n".utf8))
        for value in 0..<pending { store.dispatch(1_000 + value) }
        if pause > 0 { usleep(useconds_t(pause * 1_000_000)) }
        switch how {
        case .fatal:
            fatalError("the crash test's fatalError")
        case .segv:
            let pointer = UnsafeMutablePointer<Int>(bitPattern: 16)!
            pointer.pointee = 1
        case .abort:
            abort()
        case .trap:
            precondition(store.state < 0, "the crash test's failed precondition")
        case .kill:
            kill(getpid(), SIGKILL)
        case .hang:
            let killAfter = self.killAfter
            Thread {
                usleep(useconds_t(killAfter * 1_000_000))
                kill(getpid(), SIGKILL)
            }.start()
            FileHandle.standardOutput.write(Data("hanging at \(#line + 1)\n".utf8))
            store.dispatch(-1)
        case .hangEnds:
            FileHandle.standardOutput.write(Data("hanging at \(#line + 1)\n".utf8))
            store.dispatch(-2)
            for value in 0..<pending { store.dispatch(2_000 + value) }
            try recorder.close()
            return
        case .none:
            try recorder.close()
            return
        }
        // Not reached: each ending above ends the process.
        throw ExitCode(3)
    }
}

/// A handler in place before the recorder's, as another crash reporter would be: it says it
/// ran (async-signal-safe `write`), then lets the default action end the process.
private func installEarlierHandler() {
    for signal in [SIGSEGV, SIGABRT, SIGILL, SIGTRAP] {
        var action = sigaction()
        #if canImport(Glibc)
        action.__sigaction_handler.sa_handler = { signal in
            let text: StaticString = "earlier handler "
            _ = write(2, text.utf8Start, text.utf8CodeUnitCount)
            var digits = [UInt8](repeating: 0, count: 4)
            var value = signal, index = 3
            repeat { digits[index] = UInt8(48 + value % 10); value /= 10; index -= 1 } while value > 0 && index >= 0
            _ = digits.withUnsafeBufferPointer { write(2, $0.baseAddress! + index + 1, 3 - index) }
            _ = write(2, "\n", 1)
            Glibc.signal(signal, SIG_DFL)
            if signal == SIGABRT { raise(signal) }
        }
        #else
        action.__sigaction_u.__sa_handler = { signal in
            let text: StaticString = "earlier handler "
            _ = write(2, text.utf8Start, text.utf8CodeUnitCount)
            Darwin.signal(signal, SIG_DFL)
            if signal == SIGABRT { raise(signal) }
        }
        #endif
        sigemptyset(&action.sa_mask)
        sigaction(signal, &action, nil)
    }
}
