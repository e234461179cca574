import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the crash hook wrote for a session when its process crashed: the signal, where it
/// struck, and how far recording had got (see ``CrashHook``).
///
/// Read from the session's lock file by the next writer of the log, which then records the
/// session as ended by a crash. The bytes are untrusted (a file anyone could have written):
/// ``init(bytes:)`` checks every field and returns `nil` for anything that is not a whole mark.
public struct CrashMark: Codable, Sendable, Hashable {
    /// The signal: 6 SIGABRT, 11 SIGSEGV, 7 (Linux) or 10 (Apple) SIGBUS, 4 SIGILL, 5 SIGTRAP,
    /// 8 SIGFPE.
    public var signal: Int32
    /// Its name (`SIGSEGV`), or `signal N`.
    public var signalName: String
    /// `si_code`: how it came (≤ 0 when sent by `kill`, `raise` or `abort`).
    public var code: Int32
    /// The faulting address (for SIGSEGV and SIGBUS), else 0.
    public var address: UInt64
    /// The instruction the signal interrupted; 0 when not known (Apple platforms, for now).
    public var instruction: UInt64
    /// The image holding ``instruction`` (its path), when known.
    public var image: String?
    /// ``instruction`` as an offset into ``image`` (what `addr2line -e IMAGE OFFSET` takes).
    public var imageOffset: UInt64?
    /// The image's build id, hex (its GNU build-id note), when it has one.
    public var buildID: String?
    /// Actions the store had reduced and handed to the recorder whose batch was never
    /// written: in no log, lost with the process.
    public var uncommitted: Int64
    /// The session's last committed seq as its writer knew it; 0 before any.
    public var lastSeq: Int64
    /// When, in seconds since 1970.
    public var time: Double
    /// The process that crashed.
    public var processID: UInt32

    /// The size of a mark on disk.
    public static let size = 512

    /// Reads a mark from the bytes the handler wrote; `nil` unless they are one whole mark of a
    /// version this build reads, every field within its range.
    public init?(bytes: some Collection<UInt8>) {
        let data = [UInt8](bytes.prefix(Self.size + 1))
        guard data.count == Self.size, Array(data[0..<8]) == Array("RWNDCRSH".utf8) else { return nil }
        func integer<T: FixedWidthInteger>(_ offset: Int, as type: T.Type = T.self) -> T {
            var value = T.zero
            for index in (0..<MemoryLayout<T>.size).reversed() {
                value = value << 8 | T(truncatingIfNeeded: data[offset + index])
            }
            return value
        }
        guard integer(8, as: UInt32.self) == 1, integer(12, as: UInt32.self) == UInt32(Self.size) else { return nil }
        signal = integer(16)
        guard (1...64).contains(signal) else { return nil }
        signalName = Self.name(ofSignal: signal)
        code = integer(20)
        address = integer(24)
        instruction = integer(32)
        let handedOff: Int64 = integer(48)
        let written: Int64 = integer(56)
        lastSeq = integer(64)
        guard handedOff >= 0, written >= 0, lastSeq >= 0 else { return nil }
        // A writer may count a batch written before the dispatch path's count reaches it (the
        // two are stored apart): never a negative loss.
        uncommitted = max(0, handedOff - written)
        let seconds: Int64 = integer(72)
        let nanoseconds: Int64 = integer(80)
        guard seconds >= 0, (0..<1_000_000_000).contains(nanoseconds) else { return nil }
        time = Double(seconds) + Double(nanoseconds) / 1e9
        let buildIDLength = Int(integer(88, as: UInt32.self))
        guard buildIDLength <= 32 else { return nil }
        processID = integer(124)
        let path = data[128..<384].prefix { $0 != 0 }
        guard path.count < 256 else { return nil }
        if path.isEmpty {
            image = nil
            imageOffset = nil
            buildID = nil
        } else {
            image = String(decoding: path, as: UTF8.self)
            imageOffset = integer(40)
            buildID = buildIDLength == 0 ? nil : data[92..<(92 + buildIDLength)].map { String(format: "%02x", $0) }.joined()
        }
    }

    /// A signal's name, as the platform numbers them.
    static func name(ofSignal signal: Int32) -> String {
        switch signal {
        case SIGABRT: "SIGABRT"
        case SIGSEGV: "SIGSEGV"
        case SIGBUS: "SIGBUS"
        case SIGILL: "SIGILL"
        case SIGTRAP: "SIGTRAP"
        case SIGFPE: "SIGFPE"
        default: "signal \(signal)"
        }
    }

    /// One line: `SIGSEGV at 0x10 in rewind-stress+0x1a2b3 (3 actions reduced, never committed)`.
    public var summary: String {
        var text = signalName
        if address != 0 { text += " at 0x" + String(address, radix: 16) }
        if let image, let imageOffset {
            text += " in " + (image as NSString).lastPathComponent + "+0x" + String(imageOffset, radix: 16)
        }
        if uncommitted > 0 { text += " (\(uncommitted) action\(uncommitted == 1 ? "" : "s") reduced, never committed)" }
        return text
    }
}

/// A mark that a store keeps as JSON in `sessions.crash` (SQLite's and PostgreSQL's), beside
/// the ending it explains: a ``CrashMark`` beside `crashed`, a ``HangMark`` beside `hung`.
package protocol StoredMark: Codable {}

extension StoredMark {
    /// The mark as a store keeps it: JSON, keys sorted.
    package var storedText: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // A struct of numbers and strings always encodes.
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// A mark from a store's `sessions.crash`; `nil` when the text is not one.
    package init?(storedText: String) {
        guard let mark = try? JSONDecoder().decode(Self.self, from: Data(storedText.utf8)) else { return nil }
        self = mark
    }
}

extension CrashMark: StoredMark {}
