import Foundation

/// The state of process `pid` in Linux's `/proc/PID/stat` — "R" running, "S" sleeping, "T"
/// stopped by a signal, "Z" ended and not yet reaped by its parent —, or `nil` when there is
/// no such process (or no such file: other systems).
public func processState(_ pid: Int32) -> Character? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")") else { return nil }
    // The state follows the command's closing parenthesis: "123 (postgres) S …" (the command
    // may itself hold spaces and parentheses).
    return stat[close...].dropFirst(2).first
}
