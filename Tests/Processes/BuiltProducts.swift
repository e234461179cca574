public import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The folder SwiftPM built the test bundle into, where the package's executables are too.
public var builtProductsDirectory: URL {
    URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
}

/// The path of one of the package's built executables (`rewind`, `rewind-stress`).
public func builtProduct(_ name: String) -> String {
    builtProductsDirectory.appendingPathComponent(name).path
}

/// What a finished child process printed and how it exited.
public struct ProcessOutput: Sendable {
    /// Its exit status, or the signal that ended it (see ``signaled``).
    public var status: Int32
    /// Whether a signal ended it (a trap, a crash) rather than an exit.
    public var signaled = false
    /// Everything it wrote to standard output.
    public var standardOutput: String
    /// Everything it wrote to standard error.
    public var standardError: String
    /// From its spawn until its output was read, measured on the thread that waited for it
    /// (not including the time a test's task waited to run again after).
    public var duration: Duration = .zero
    /// The wall-clock times (`Date`'s) of its spawn and of its output's end, read on the thread
    /// that waited for it: what it stamped with the system clock while it ran lies within, however
    /// late the test's task resumes after.
    public var span: ClosedRange<Double> = 0...0
    /// The most memory it held resident, in kilobytes, as last read before it exited (its
    /// `VmHWM`, read every 50 ms at most: what it reached in its last moments may be missed);
    /// `nil` where Linux's `/proc` is not there.
    public var peakResidentKilobytes: Int?
}

/// Runs an executable to completion and captures its output. A child still running after
/// `timeout` seconds is killed (SIGKILL): the output then says `signaled` with signal 9.
///
/// The child is waited for on a thread of its own, never on Swift's cooperative pool: that pool
/// has a thread per core (two here), and a test blocking one while a child works starves every
/// async test beside it, effects and time limits included. (Blocking calls from the test
/// functions were why a suite's effects once waited over a minute for a thread.)
public func run(
    _ executable: String, _ arguments: [String], in directory: String? = nil,
    environment: [String: String] = [:], timeout: Double = 600
) async throws -> ProcessOutput {
    try await withCheckedThrowingContinuation { continuation in
        Thread {
            continuation.resume(with: Result { try runBlocking(executable, arguments, in: directory, environment: environment, timeout: timeout) })
        }.start()
    }
}

/// ``run(_:_:in:environment:timeout:)`` on the calling thread, for code that cannot await (a
/// test's condition trait). Never call it from a test's body: see ``run(_:_:in:environment:timeout:)``.
///
/// The child is spawned and reaped here (`posix_spawn`, `waitpid`), not with Foundation's
/// `Process`: on Linux, `Process` reports a child's exit only once every holder of its output
/// pipes has closed them, so a grandchild left behind (an orphaned `swift-backtrace` after a
/// crash) held a test until CI's limit. Here the exit is seen at once; the pipes then get
/// ``pipeGrace`` seconds to close, after which what is left of the child's process group is
/// killed and the output read so far is returned.
public func runBlocking(
    _ executable: String, _ arguments: [String], in directory: String? = nil,
    environment: [String: String] = [:], timeout: Double = 600
) throws -> ProcessOutput {
    let spawned = Date().timeIntervalSince1970
    let child = try SpawnedChild(executable, arguments, in: directory, environment: environment)
    let start = ContinuousClock.now
    var output = [Data(), Data()]
    var open = [true, true]
    var exit: Int32?
    var closedBy: ContinuousClock.Instant?
    var killed = false
    var buffer = [UInt8](repeating: 0, count: 65_536)
    var peak: Int?
    while open.contains(true) {
        if exit == nil, let hwm = peakResidentKilobytes(child.pid) { peak = max(peak ?? 0, hwm) }
        if exit == nil, let status = child.exitStatus() {
            exit = status
            closedBy = .now + .seconds(pipeGrace)
        }
        if let closedBy, ContinuousClock.now >= closedBy {
            kill(-child.pid, SIGKILL)  // what is left of its group (a stuck grandchild)
            break
        }
        if exit == nil, !killed, ContinuousClock.now - start >= .seconds(timeout) {
            kill(-child.pid, SIGKILL)
            killed = true
        }
        var fds = [0, 1].map { pollfd(fd: open[$0] ? child.pipes[$0] : -1, events: Int16(POLLIN), revents: 0) }
        guard poll(&fds, 2, 50) >= 0 || errno == EINTR else { break }
        for index in 0..<2 where open[index] && fds[index].revents != 0 {
            let count = read(child.pipes[index], &buffer, buffer.count)
            if count > 0 {
                output[index].append(contentsOf: buffer[..<count])
            } else if count == 0 || errno != EINTR {
                open[index] = false
            }
        }
    }
    let status = exit ?? child.waitForExit()
    return ProcessOutput(
        status: isSignaled(status) ? status & 0x7f : (status >> 8) & 0xff,
        signaled: isSignaled(status),
        standardOutput: String(decoding: output[0], as: UTF8.self),
        standardError: String(decoding: output[1], as: UTF8.self),
        duration: ContinuousClock.now - start,
        span: spawned...Date().timeIntervalSince1970,
        peakResidentKilobytes: peak
    )
}

/// How long a child's output pipes may stay open after it exits, held by a process it left
/// behind, before that process is killed.
public let pipeGrace = 10.0

private func isSignaled(_ status: Int32) -> Bool { status & 0x7f != 0 && status & 0x7f != 0x7f }

/// A child process in a process group of its own, its standard output and error on pipes.
private final class SpawnedChild {
    let pid: pid_t
    /// The read ends of its standard output and standard error.
    let pipes: [Int32]
    private var reaped = false

    init(_ executable: String, _ arguments: [String], in directory: String?, environment: [String: String]) throws {
        var outputPipe: [Int32] = [0, 0], errorPipe: [Int32] = [0, 0]
        guard pipe(&outputPipe) == 0, pipe(&errorPipe) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        for fd in outputPipe + errorPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        defer { close(outputPipe[1]); close(errorPipe[1]) }
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t?
        var attributes: posix_spawnattr_t?
        #else
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer { posix_spawn_file_actions_destroy(&actions); posix_spawnattr_destroy(&attributes) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errorPipe[1], 2)
        // Nothing else the test process has open reaches the child: another test's pipe kept
        // open by it would hold that test, and a file being written (a binary just copied)
        // would make its exec fail with ETXTBSY.
        #if canImport(Darwin)
        let closeOthers = Int16(POSIX_SPAWN_CLOEXEC_DEFAULT)
        #else
        let closeOthers: Int16 = 0
        guard let closeFrom = Self.addCloseFrom else { throw POSIXError(.ENOSYS) }
        _ = closeFrom(&actions, 3)
        #endif
        // Its own process group, so what it leaves behind can be killed with it; every signal at
        // its default and none blocked, whatever the test process set for itself.
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF) | closeOthers)
        let variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { "\($0)=\($1)" }
        // In another folder through `sh`, which changes to it and execs the child in its own
        // place (same pid): glibc's `posix_spawn_file_actions_addchdir_np` is not visible to Swift.
        let command = directory.map { ["/bin/sh", "-c", "cd -- \"$0\" && exec \"$@\"", $0, executable] } ?? [executable]
        let argv = (command + arguments).map { strdup($0) } + [nil]
        let envp = variables.map { strdup($0) } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid = pid_t()
        let result = posix_spawn(&pid, command[0], &actions, &attributes, argv, envp)
        guard result == 0 else {
            close(outputPipe[0]); close(errorPipe[0])
            throw POSIXError(.init(rawValue: result) ?? .EIO)
        }
        self.pid = pid
        pipes = [outputPipe[0], errorPipe[0]]
    }

    #if !canImport(Darwin)
    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), looked up at run
    /// time: Swift's Glibc module does not declare it.
    private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()
    #endif

    /// Its wait status once it has exited, without waiting.
    func exitStatus() -> Int32? {
        var status: Int32 = 0
        guard !reaped, waitpid(pid, &status, WNOHANG) == pid else { return nil }
        reaped = true
        return status
    }

    /// Waits for its exit.
    func waitForExit() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        reaped = true
        return status
    }

    deinit { for fd in pipes { close(fd) } }
}
