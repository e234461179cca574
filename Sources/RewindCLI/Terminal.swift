import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether the tool may colour its output: only when standard output is a terminal, and never
/// when `NO_COLOR` is set to anything non-empty (https://no-color.org). Output piped to a file
/// or another program, and every `--json` output, is plain.
enum Terminal {
    static let usesColour: Bool = {
        if let noColour = ProcessInfo.processInfo.environment["NO_COLOR"], !noColour.isEmpty { return false }
        return isatty(STDOUT_FILENO) != 0
    }()

    static let red = "\u{1B}[31m"
    static let green = "\u{1B}[32m"
    static let reset = "\u{1B}[0m"
}
