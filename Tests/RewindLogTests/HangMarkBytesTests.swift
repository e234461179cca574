import Foundation
import Rewind
import RewindLog
import RewindTestSupport
import Testing

/// The hang watchdog's mark as bytes: what a lock file may hold, every field at its edges.
@Suite("Hang mark bytes")
struct HangMarkBytesTests {
    static let mark = HangMark(
        actionCase: "cart.checkout", source: ActionSource(file: "Shop/CartView.swift", function: "checkout()", line: 42, column: 9, info: "pay button", origin: .call),
        began: 1_795_813_821.25, detected: 1_795_813_823.5, limit: 2, processID: 4_242
    )

    /// `bytes` with `value` little-endian at `offset`.
    static func setting<T: FixedWidthInteger>(_ bytes: [UInt8], _ offset: Int, _ value: T) -> [UInt8] {
        var bytes = bytes
        for index in 0..<MemoryLayout<T>.size { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
        return bytes
    }

    @Test("a mark reads back as written, with no info and with every origin")
    func roundTrip() throws {
        #expect(HangMark(bytes: Self.mark.bytes) == Self.mark)
        for origin in ActionSource.Origin.allCases {
            var mark = Self.mark
            mark.source = ActionSource(file: "A/B.swift", function: "f()", line: 1, column: 1, origin: origin)
            #expect(HangMark(bytes: mark.bytes) == mark)
        }
    }

    @Test("texts longer than their field are cut between characters; the largest numbers read without a trap")
    func edges() throws {
        var mark = Self.mark
        mark.actionCase = String(repeating: "é", count: 200)  // 2 bytes each: 48 fit in 96
        mark.source = ActionSource(file: String(repeating: "f", count: 500), function: String(repeating: "g", count: 500),
                                   line: .max, column: .max, info: String(repeating: "🙂", count: 40))
        let read = try #require(HangMark(bytes: mark.bytes))
        #expect(read.actionCase == String(repeating: "é", count: 48))
        #expect(read.source.file.utf8.count == 160 && read.source.function.utf8.count == 120 && read.source.info == String(repeating: "🙂", count: 16))
        #expect(read.source.line == UInt(UInt32.max) && read.source.column == UInt(UInt32.max))
        let huge = HangMark(actionCase: "a", source: ActionSource(), began: 0, detected: .greatestFiniteMagnitude, limit: .leastNonzeroMagnitude, processID: .max)
        #expect(HangMark(bytes: huge.bytes) == huge)
    }

    @Test("anything but one whole mark of this version reads as none", arguments: [
        ("empty", []),
        ("one byte short", Array(mark.bytes.dropLast())),
        ("one byte long", mark.bytes + [0]),
        ("another magic", setting(mark.bytes, 0, UInt64(0))),
        ("version 0", setting(mark.bytes, 8, UInt32(0))),
        ("version 2", setting(mark.bytes, 8, UInt32(2))),
        ("version max", setting(mark.bytes, 8, UInt32.max)),
        ("size 511", setting(mark.bytes, 12, UInt32(511))),
        ("size max", setting(mark.bytes, 12, UInt32.max)),
        ("began NaN", setting(mark.bytes, 16, Double.nan.bitPattern)),
        ("began negative", setting(mark.bytes, 16, (-1.0).bitPattern)),
        ("began infinite", setting(mark.bytes, 16, Double.infinity.bitPattern)),
        ("detected before began", setting(mark.bytes, 24, (1.0).bitPattern)),
        ("detected NaN", setting(mark.bytes, 24, Double.nan.bitPattern)),
        ("limit 0", setting(mark.bytes, 32, (0.0).bitPattern)),
        ("limit negative", setting(mark.bytes, 32, (-2.0).bitPattern)),
        ("limit infinite", setting(mark.bytes, 32, Double.infinity.bitPattern)),
        ("case length 0", setting(mark.bytes, 52, UInt16(0))),
        ("case length 97", setting(mark.bytes, 52, UInt16(97))),
        ("case length max", setting(mark.bytes, 52, UInt16.max)),
        ("file length 161", setting(mark.bytes, 54, UInt16(161))),
        ("function length 121", setting(mark.bytes, 56, UInt16(121))),
        ("info length 65", setting(mark.bytes, 58, UInt16(65))),
        ("info without its flag", setting(mark.bytes, 61, UInt8(0))),
        ("info flag 2", setting(mark.bytes, 61, UInt8(2))),
        ("origin out of range", setting(mark.bytes, 60, UInt8(ActionSource.Origin.allCases.count))),
        ("origin max", setting(mark.bytes, 60, UInt8.max)),
        ("reserved bytes not zero", setting(mark.bytes, 64, UInt8(1))),
        ("case not UTF-8", setting(mark.bytes, 72, UInt8(0xFF))),
        ("a crash mark", CrashMarkBytes().bytes),
    ] as [(String, [UInt8])])
    func refused(_ what: String, bytes: [UInt8]) {
        #expect(HangMark(bytes: bytes) == nil, "\(what)")
    }

    @Test("the next writer calls a session hung for a whole hang mark, unclean for a damaged one")
    func nextWriter() throws {
        let hung = try CrashMarkBytes.ending(withLockFile: Self.mark.bytes)
        #expect(hung?.kind == .hung && hung?.hang == Self.mark && hung?.crash == nil && hung?.time == Self.mark.detected)
        #expect(hung?.label == "hung (cart.checkout)")
        #expect(try CrashMarkBytes.ending(withLockFile: Self.setting(Self.mark.bytes, 52, UInt16(97)))?.kind == .unclean)
        // Cleared by the watchdog when the action ended: zeros.
        #expect(try CrashMarkBytes.ending(withLockFile: [UInt8](repeating: 0, count: HangMark.size))?.kind == .unclean)
    }

    @Test("a hung session's mark survives an export and an import")
    func exportAndImport() throws {
        let folder = try TemporaryDirectory()
        let log = try CrashMarkBytes.crashedLog(at: folder.file("hung.rewind"), mark: Self.mark.bytes)
        try log.close()
        let reader = try EventLog(path: folder.file("hung.rewind"), mode: .readOnly)
        _ = try reader.export(to: URL(fileURLWithPath: folder.file("hung.jsonl")))
        let copy = try EventLog.importLog(from: URL(fileURLWithPath: folder.file("hung.jsonl")), to: folder.file("copy.rewind"))
        let ending = try #require(try copy.sessions().first?.ending)
        #expect(ending.kind == .hung && ending.hang == Self.mark)
    }
}
