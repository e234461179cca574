import Foundation

/// The resident memory of process `pid` (this one by default), in kilobytes: `VmRSS` in
/// Linux's `/proc/PID/status`; `nil` where there is no such file (other systems).
public func residentKilobytes(_ pid: Int32? = nil) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid.map(String.init) ?? "self")/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
    return Int(line.split(separator: " ").dropFirst().first ?? "")
}
