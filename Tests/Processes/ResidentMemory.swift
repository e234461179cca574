import Foundation

/// The resident memory of process `pid` (this one by default), in kilobytes: `VmRSS` in
/// Linux's `/proc/PID/status`; `nil` where there is no such file (other systems).
public func residentKilobytes(_ pid: Int32? = nil) -> Int? {
    statusKilobytes("VmRSS:", pid)
}

/// The most memory process `pid` has held resident so far, in kilobytes: `VmHWM` in Linux's
/// `/proc/PID/status`; `nil` where there is no such file.
public func peakResidentKilobytes(_ pid: Int32? = nil) -> Int? {
    statusKilobytes("VmHWM:", pid)
}

private func statusKilobytes(_ field: String, _ pid: Int32?) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid.map(String.init) ?? "self")/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }) else { return nil }
    return Int(line.split(separator: " ").dropFirst().first ?? "")
}
