import Foundation
import RewindLog
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the tool does when it is interrupted (Ctrl-C) or told to stop (SIGTERM, SIGHUP): it
/// deletes the temporary copies older logs are being read through, then ends by the signal
/// as it would have without the handler (the shell sees the usual status, 130 for Ctrl-C).
///
/// The signal handler itself only writes the signal's number to a pipe (`write` is
/// async-signal-safe; deleting files through Foundation is not); a thread of its own reads
/// the pipe and does the rest. (Dispatch's signal sources are not used: on Linux they never
/// fire for a signal set to be ignored, which is how they are meant to be used on Darwin.)
enum Interruption {
    /// Folders of temporary files to delete when interrupted (``removeOnExit(_:)``).
    private static let folders = Mutex<[String]>([])

    /// Deletes `folder` (a folder of the tool's own temporary files) if the tool is
    /// interrupted; its owner deletes it on a normal end.
    static func removeOnExit(_ folder: String) {
        folders.withLock { $0.append(folder) }
    }

    /// The pipe's write end, set before any handler is installed; read by the handler only.
    nonisolated(unsafe) fileprivate static var pipeWriteEnd: Int32 = -1

    /// Installs the handlers, once, at the tool's start. A signal the tool was started with
    /// ignored (`nohup`, a background job of a script) stays ignored.
    static func install() {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return }
        // Not inherited by a process the tool starts (a browser).
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        pipeWriteEnd = ends[1]
        let readEnd = ends[0]
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
            var action = sigaction()
            #if canImport(Glibc)
            action.__sigaction_handler.sa_handler = interrupted
            #elseif canImport(Darwin)
            action.__sigaction_u.__sa_handler = interrupted
            #endif
            sigemptyset(&action.sa_mask)
            var previous = sigaction()
            guard sigaction(signalNumber, nil, &previous) == 0 else { continue }
            #if canImport(Glibc)
            let wasIgnored = unsafeBitCast(previous.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
            #elseif canImport(Darwin)
            let wasIgnored = unsafeBitCast(previous.__sigaction_u.__sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
            #endif
            if wasIgnored { continue }
            sigaction(signalNumber, &action, nil)
        }
        let thread = Thread {
            var received: Int32 = 0
            while read(readEnd, &received, MemoryLayout<Int32>.size) != MemoryLayout<Int32>.size {
                if errno != EINTR { return }
            }
            EventLog.removeTemporaryCopies()
            for folder in folders.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: folder) }
            signal(received, SIG_DFL)
            // Threads may be made with signals blocked: unblock it here, then send it to the
            // process, which its default action ends.
            var unblocked = sigset_t()
            sigemptyset(&unblocked)
            sigaddset(&unblocked, received)
            pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
            kill(getpid(), received)
        }
        thread.name = "rewind.interruption"
        thread.start()
    }
}

/// The handler: hands the signal's number to the thread that acts on it.
private func interrupted(_ signalNumber: Int32) {
    var number = signalNumber
    _ = write(Interruption.pipeWriteEnd, &number, MemoryLayout<Int32>.size)
}
