import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A line of progress on standard error, rewritten in place while long work runs (a push, a
/// pull): only on a terminal, never with `--json`, so pipes and scripts see the report alone.
struct ProgressLine: Sendable {
    let isShown: Bool

    init(json: Bool) {
        isShown = !json && isatty(STDERR_FILENO) != 0
    }

    /// Replaces the line with `text`.
    func update(_ text: @autoclosure () -> String) {
        guard isShown else { return }
        FileHandle.standardError.write(Data(("\r" + text()).utf8))
    }

    /// Runs `body`, then ends the line however `body` ends, so the report or the error that
    /// follows starts on a line of its own.
    func around<T>(_ body: () async throws -> T) async rethrows -> T {
        defer { if isShown { FileHandle.standardError.write(Data("\n".utf8)) } }
        return try await body()
    }

    /// ``around(_:)`` for work that does not suspend.
    func around<T>(_ body: () throws -> T) rethrows -> T {
        defer { if isShown { FileHandle.standardError.write(Data("\n".utf8)) } }
        return try body()
    }
}
