import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The processor time process `pid` has used so far (user and system), in seconds: fields 14
/// and 15 of Linux's `/proc/PID/stat`; `nil` where there is no such file (other systems).
public func processorSeconds(_ pid: Int32) -> Double? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")") else { return nil }
    // After the command name (in parentheses, and free to hold spaces): field 3 onwards.
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
    #if canImport(Glibc)
    let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
    #else
    let ticks = 100.0
    #endif
    return (user + system) / ticks
}
