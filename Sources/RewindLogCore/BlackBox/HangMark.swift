import Foundation
public import Rewind

/// What the hang watchdog wrote for a session while its store was stuck inside one action
/// (``RecorderConfiguration/hangLimit``): which action, from where, since when.
///
/// The watchdog writes it into the session's lock file, where the crash hook writes a
/// ``CrashMark``, and clears it when the action ends. A process that never came out of the
/// action (ended by the system's watchdog, or by the user) leaves it there, and the log's next
/// writer records the session as ``SessionEnding/Kind/hung``. (A crash during a hang writes its
/// crash mark over it: the session then counts as crashed. True by construction, not tested.) The bytes are untrusted:
/// ``init(bytes:)`` checks every field and returns `nil` for anything that is not a whole mark.
public struct HangMark: Codable, Sendable, Hashable {
    /// The case of the action the store was inside (`cart.checkout`), as the log names cases.
    public var actionCase: String
    /// Where that action was dispatched from.
    public var source: ActionSource
    /// When the watchdog first saw the store inside it, in seconds since 1970: the action
    /// began at most one watchdog interval (a quarter of the limit) before.
    public var began: Double
    /// When the watchdog found it over the limit, in seconds since 1970.
    public var detected: Double
    /// The watchdog's limit, in seconds.
    public var limit: Double
    /// The process that hung.
    public var processID: UInt32

    /// A mark.
    public init(actionCase: String, source: ActionSource, began: Double, detected: Double, limit: Double, processID: UInt32) {
        self.actionCase = actionCase
        self.source = source
        self.began = began
        self.detected = detected
        self.limit = limit
        self.processID = processID
    }

    /// The size of a mark on disk: a crash mark's, so that either fills the file.
    public static let size = CrashMark.size

    // The layout, little-endian: magic "RWNDHANG"; u32 version 1; u32 size 512; f64 began;
    // f64 detected; f64 limit; u32 line; u32 column; u32 pid; u16 lengths of the case, file,
    // function and info; u8 origin; zeros to 72; then the case (at most 96 bytes), file (160),
    // function (120) and info (64), each UTF-8, at fixed offsets.
    private static let magic = Array("RWNDHANG".utf8)
    private static let fields: [(offset: Int, capacity: Int)] = [(72, 96), (168, 160), (328, 120), (448, 64)]

    /// The mark as the watchdog writes it: texts longer than their field are cut at a
    /// character boundary.
    public var bytes: [UInt8] {
        var data = [UInt8](repeating: 0, count: Self.size)
        func put<T: FixedWidthInteger>(_ value: T, at offset: Int) {
            for index in 0..<MemoryLayout<T>.size { data[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
        }
        data.replaceSubrange(0..<8, with: Self.magic)
        put(UInt32(1), at: 8)
        put(UInt32(Self.size), at: 12)
        put(began.bitPattern, at: 16)
        put(detected.bitPattern, at: 24)
        put(limit.bitPattern, at: 32)
        put(UInt32(clamping: source.line), at: 40)
        put(UInt32(clamping: source.column), at: 44)
        put(processID, at: 48)
        let texts = [actionCase, source.file, source.function, source.info ?? ""]
        for (index, (text, field)) in zip(texts, Self.fields).enumerated() {
            let utf8 = Self.prefix(of: text, fitting: field.capacity)
            put(UInt16(utf8.count), at: 52 + 2 * index)
            data.replaceSubrange(field.offset..<(field.offset + utf8.count), with: utf8)
        }
        data[60] = UInt8(ActionSource.Origin.allCases.firstIndex(of: source.origin) ?? 0)
        data[61] = source.info == nil ? 0 : 1
        return data
    }

    /// Reads a mark from a lock file's bytes; `nil` unless they are one whole mark of a version
    /// this build reads, every field within its range.
    public init?(bytes: some Collection<UInt8>) {
        let data = [UInt8](bytes.prefix(Self.size + 1))
        guard data.count == Self.size, Array(data[0..<8]) == Self.magic else { return nil }
        func integer<T: FixedWidthInteger>(_ offset: Int, as type: T.Type = T.self) -> T {
            var value = T.zero
            for index in (0..<MemoryLayout<T>.size).reversed() { value = value << 8 | T(truncatingIfNeeded: data[offset + index]) }
            return value
        }
        guard integer(8, as: UInt32.self) == 1, integer(12, as: UInt32.self) == UInt32(Self.size) else { return nil }
        let began = Double(bitPattern: integer(16)), detected = Double(bitPattern: integer(24)), limit = Double(bitPattern: integer(32))
        guard began.isFinite, detected.isFinite, limit.isFinite, began >= 0, detected >= began, limit > 0 else { return nil }
        var texts: [String] = []
        for (index, field) in Self.fields.enumerated() {
            let length = Int(integer(52 + 2 * index, as: UInt16.self))
            guard length <= field.capacity,
                  let text = String(validating: data[field.offset..<(field.offset + length)], as: UTF8.self) else { return nil }
            texts.append(text)
        }
        let origin = Int(data[60]), hasInfo = data[61]
        guard origin < ActionSource.Origin.allCases.count, hasInfo <= 1, data[62..<72].allSatisfy({ $0 == 0 }) else { return nil }
        guard !texts[0].isEmpty, hasInfo == 1 || texts[3].isEmpty else { return nil }
        let source = ActionSource(
            file: texts[1], function: texts[2], line: UInt(integer(40, as: UInt32.self)), column: UInt(integer(44, as: UInt32.self)),
            info: hasInfo == 1 ? texts[3] : nil, origin: ActionSource.Origin.allCases[origin]
        )
        self.init(actionCase: texts[0], source: source, began: began, detected: detected, limit: limit, processID: integer(48))
    }

    /// The longest prefix of `text` whose UTF-8 fits `capacity` bytes, cut between characters.
    private static func prefix(of text: String, fitting capacity: Int) -> [UInt8] {
        var utf8: [UInt8] = []
        for character in text {
            let bytes = Array(String(character).utf8)
            guard utf8.count + bytes.count <= capacity else { break }
            utf8 += bytes
        }
        return utf8
    }

    /// One line: `inside cart.checkout for over 2 s (Shop/CartView.swift:42)`.
    public var summary: String {
        let seconds = detected - began >= limit ? detected - began : limit
        return "inside \(actionCase) for over " + String(format: "%.1f", seconds) + " s (\(source.file):\(source.line))"
    }
}

extension HangMark: StoredMark {}
