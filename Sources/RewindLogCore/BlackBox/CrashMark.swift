import Foundation
public import Rewind
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
    /// The instruction the signal interrupted; 0 when not known (32-bit watches).
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
    /// The last action the store reduced and handed to the recorder: where it came from, and
    /// its case when the recorder had named it. `nil` when not known (a mark from before this
    /// field, or the dispatch path was noting it as the crash struck).
    public var lastReduced: ReducedAction?
    /// When, in seconds since 1970.
    public var time: Double
    /// The process that crashed.
    public var processID: UInt32

    /// The size of a mark on disk.
    public static let size = 512

    /// How a mark stores an origin: 1 + its index in `allCases`; 0 for none. A switch, not
    /// `allCases.firstIndex(of:)`: the dispatch path calls it, and `allCases` builds an array.
    @usableFromInline
    static func code(of origin: ActionSource.Origin) -> UInt8 {
        switch origin {
        case .call: 1
        case .middleware: 2
        case .effect: 3
        case .feedback: 4
        case .scene: 5
        }
    }
    /// How many bytes of the last reduced action's file a mark keeps: the end, the file's name
    /// (`REWIND_CRASH_FILE_CAPACITY`, as the handler writes it).
    static let fileCapacity = 48
    /// How many bytes of its case a mark keeps: the start (`REWIND_CRASH_CASE_CAPACITY`).
    static let caseCapacity = 61

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
        // The last 128 bytes: the last action reduced (zeros in marks from before them).
        let index: Int64 = integer(384)
        let fileLength = Int(data[401] & 0x7F), caseLength = Int(data[450] & 0x7F)
        guard index >= 0, Int(data[400]) <= ActionSource.Origin.allCases.count,
              fileLength <= Self.fileCapacity, caseLength <= Self.caseCapacity else { return nil }
        if index == 0 || index != handedOff {
            // None yet, or an action older than the last handed off: not the last reduced.
            lastReduced = nil
        } else {
            let file = String(decoding: data[402..<(402 + fileLength)], as: UTF8.self)
            let actionCase = String(decoding: data[451..<(451 + caseLength)], as: UTF8.self)
            lastReduced = ReducedAction(
                actionCase: caseLength == 0 ? nil : actionCase + (data[450] & 0x80 != 0 ? "…" : ""),
                file: (data[401] & 0x80 != 0 ? "…" : "") + file,
                line: UInt(integer(392, as: UInt32.self)),
                column: UInt(integer(396, as: UInt32.self)),
                origin: data[400] == 0 ? nil : ActionSource.Origin.allCases[Int(data[400]) - 1],
                committed: written >= handedOff
            )
        }
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
        if let lastReduced { text += "; last reduced: " + lastReduced.summary }
        return text
    }
}

extension CrashMark {
    /// The last action a store reduced before its process crashed, as the crash mark keeps it:
    /// the dispatch path notes each action's source as it hands it off (a few stores, no call
    /// out), and the recorder's writer thread names its case when it next looks at the buffer
    /// (at once when it was idle; a burst's later actions wait for the next batch, and their
    /// case is then not known).
    public struct ReducedAction: Codable, Sendable, Hashable {
        /// Its case (`checkout.submit`), as the log names cases; `…` at the end when cut to fit;
        /// `nil` when the writer had not named it yet.
        public var actionCase: String?
        /// The file it was dispatched from, as `#fileID` gives it; `…` at the start when cut
        /// to fit (48 bytes are kept); empty when the file was not at hand (a bridged string).
        public var file: String
        /// The line it was dispatched from.
        public var line: UInt
        /// The column it was dispatched from.
        public var column: UInt
        /// Who dispatched it; `nil` when not known.
        public var origin: ActionSource.Origin?
        /// Whether its batch was written: it is then the event at ``CrashMark/lastSeq``.
        public var committed: Bool

        /// An action as a mark describes it.
        public init(actionCase: String?, file: String, line: UInt, column: UInt, origin: ActionSource.Origin?, committed: Bool) {
            self.actionCase = actionCase
            self.file = file
            self.line = line
            self.column = column
            self.origin = origin
            self.committed = committed
        }

        /// `checkout.submit from Shop/CheckoutView.swift:42:9 (never committed)`.
        public var summary: String {
            var text = (actionCase ?? "an action of unknown case") + " from " + (file.isEmpty ? "?" : file) + ":\(line):\(column)"
            if let origin, origin != .call { text += " [\(origin.rawValue)]" }
            if !committed { text += " (never committed)" }
            return text
        }
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
