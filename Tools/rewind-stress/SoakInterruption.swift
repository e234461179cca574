#if PostgreSQL
import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What an interrupted soak (Ctrl-C in a terminal, SIGTERM from CI) undoes before it exits.
/// A backend it stopped (SIGSTOP) and nobody continues holds the server's shutdown forever: a
/// fast stop waits for every backend. And `rewind serve`, started by Foundation's `Process` in
/// a process group of its own, never gets the terminal's Ctrl-C: it would outlive the run.
///
/// On SIGINT or SIGTERM it continues the backends still stopped, terminates the children it
/// was given, says so and what it leaves (the run's database), and exits 128 + the signal.
final class SoakInterruption: @unchecked Sendable {
    // @unchecked: the signal sources are set once, in init, and only kept alive here; the
    // rest is behind a Mutex.
    private let stopped = Mutex<Set<pid_t>>([])
    private let children = Mutex<[@Sendable () -> pid_t?]>([])
    private var sources: [any DispatchSourceSignal] = []
    private let leaving: String

    /// Watches SIGINT and SIGTERM from now on; `leaving` names what an interrupted run leaves
    /// behind (said on the way out).
    init(leaving: String) {
        self.leaving = leaving
        for signalNumber in [SIGINT, SIGTERM] {
            // Ignored as a signal, so that only the source sees it.
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { [self] in interrupted(by: signalNumber) }
            source.resume()
            sources.append(source)
        }
    }

    private func interrupted(by signalNumber: Int32) -> Never {
        let backends = stopped.withLock { $0 }
        for pid in backends { kill(pid, SIGCONT) }
        let pids = children.withLock { $0 }.compactMap { $0() }
        for pid in pids { kill(pid, SIGTERM) }
        report("\ninterrupted (signal \(signalNumber)): "
            + (backends.isEmpty ? "" : "continued the stopped backend \(backends.sorted().map(String.init).joined(separator: ", ")); ")
            + (pids.isEmpty ? "" : "stopped rewind serve (\(pids.map(String.init).joined(separator: ", "))); ")
            + leaving)
        exit(128 + signalNumber)
    }

    /// `pids` are about to be stopped: continued on the way out until ``continued(_:)``.
    func stopping(_ pids: [pid_t]) {
        stopped.withLock { $0.formUnion(pids) }
    }

    /// `pids` were continued.
    func continued(_ pids: [pid_t]) {
        stopped.withLock { $0.subtract(pids) }
    }

    /// A child to terminate on the way out, by its current process id (`nil`: none running).
    func terminating(_ child: @escaping @Sendable () -> pid_t?) {
        children.withLock { $0.append(child) }
    }
}
#endif
