public import Foundation
import Synchronization

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
public func runBlocking(
    _ executable: String, _ arguments: [String], in directory: String? = nil,
    environment: [String: String] = [:], timeout: Double = 600
) throws -> ProcessOutput {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if !environment.isEmpty {
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let output = Pipe(), error = Pipe()
    process.standardOutput = output
    process.standardError = error
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let watchdog = DispatchWorkItem { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
    defer { watchdog.cancel() }
    // Read both pipes to the end before waiting, so a chatty child never blocks on a full pipe.
    let errorData = Mutex<Data>(Data())
    let errorReader = Thread { errorData.withLock { $0 = error.fileHandleForReading.readDataToEndOfFile() } }
    errorReader.start()
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    while errorReader.isExecuting || !errorReader.isFinished { Thread.sleep(forTimeInterval: 0.001) }
    return ProcessOutput(
        status: process.terminationStatus,
        signaled: process.terminationReason == .uncaughtSignal,
        standardOutput: String(decoding: outputData, as: UTF8.self),
        standardError: String(decoding: errorData.withLock { $0 }, as: UTF8.self)
    )
}
