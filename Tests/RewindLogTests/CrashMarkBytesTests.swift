import Foundation
import GRDB
import Rewind
import RewindLog
@testable import RewindLogCore
@testable import RewindSQLite
import RewindTestSupport
import Testing

/// A crash mark is read from a file beside the log, which anything could have written: every
/// field at its edges decodes to a mark or to nothing, never a trap; and the log's next writer
/// calls a session crashed only for a whole mark.
@Suite("Crash mark bytes")
struct CrashMarkBytesTests {
    @Test("a whole mark reads field by field")
    func whole() throws {
        let mark = try #require(CrashMark(bytes: CrashMarkBytes().bytes))
        #expect(mark.signal == 11 && mark.signalName == "SIGSEGV" && mark.code == 1 && mark.address == 16)
        #expect(mark.instruction == 0x5555_0000_1234 && mark.imageOffset == 0x1234 && mark.image == "/bin/my-app")
        #expect(mark.buildID == "000102030405060708090a0b0c0d0e0f10111213")
        #expect(mark.uncommitted == 3 && mark.lastSeq == 5 && mark.processID == 4242)
        #expect(mark.time == 1_795_813_821.5)
        #expect(mark.summary == "SIGSEGV at 0x10 in my-app+0x1234 (3 actions reduced, never committed)")
    }

    @Test("anything but one whole mark of this version reads as none", arguments: [
        ("empty", []),
        ("one byte short", Array(CrashMarkBytes().bytes.dropLast())),
        ("one byte long", CrashMarkBytes().bytes + [0]),
        ("another magic", CrashMarkBytes().setting(0, UInt64(0))),
        ("version 0", CrashMarkBytes().setting(8, UInt32(0))),
        ("version 2", CrashMarkBytes().setting(8, UInt32(2))),
        ("version UInt32.max", CrashMarkBytes().setting(8, UInt32.max)),
        ("size 511", CrashMarkBytes().setting(12, UInt32(511))),
        ("size UInt32.max", CrashMarkBytes().setting(12, UInt32.max)),
        ("signal 0", CrashMarkBytes().setting(16, Int32(0))),
        ("signal 65", CrashMarkBytes().setting(16, Int32(65))),
        ("signal -1", CrashMarkBytes().setting(16, Int32(-1))),
        ("signal Int32.min", CrashMarkBytes().setting(16, Int32.min)),
        ("handed off -1", CrashMarkBytes().setting(48, Int64(-1))),
        ("written Int64.min", CrashMarkBytes().setting(56, Int64.min)),
        ("last seq -1", CrashMarkBytes().setting(64, Int64(-1))),
        ("seconds -1", CrashMarkBytes().setting(72, Int64(-1))),
        ("nanoseconds 1e9", CrashMarkBytes().setting(80, Int64(1_000_000_000))),
        ("nanoseconds -1", CrashMarkBytes().setting(80, Int64(-1))),
        ("build id length 33", CrashMarkBytes().setting(88, UInt32(33))),
        ("build id length UInt32.max", CrashMarkBytes().setting(88, UInt32.max)),
        ("a last reduced index of -1", CrashMarkBytes().reducing(index: -1)),
        ("a last reduced index of Int64.min", CrashMarkBytes().reducing(index: .min)),
        ("an origin past the last", CrashMarkBytes().reducing(origin: UInt8(ActionSource.Origin.allCases.count + 1))),
        ("an origin of 255", CrashMarkBytes().reducing(origin: 255)),
        ("a file length of 49", CrashMarkBytes().reducing(fileLength: 49)),
        ("a cut file length of 127", CrashMarkBytes().reducing(fileLength: 0xFF)),
        ("a case length of 62", CrashMarkBytes().reducing(caseLength: 62)),
        ("a cut case length of 127", CrashMarkBytes().reducing(caseLength: 0xFF)),
        ("an image path with no end", { var mark = CrashMarkBytes(); mark.bytes.replaceSubrange(128..<384, with: [UInt8](repeating: 0x41, count: 256)); return mark.bytes }()),
    ] as [(String, [UInt8])])
    func refused(_ what: String, bytes: [UInt8]) {
        #expect(CrashMark(bytes: bytes) == nil, "\(what)")
    }

    @Test("the largest values read without a trap; a writer ahead of the dispatch path loses nothing")
    func edges() throws {
        var mark = CrashMarkBytes()
        mark.set(16, Int32(64))
        mark.set(24, UInt64.max)
        mark.set(32, UInt64.max)
        mark.set(40, UInt64.max)
        mark.set(48, Int64.max)
        mark.set(56, Int64(0))
        mark.set(64, Int64.max)
        mark.set(72, Int64.max)
        mark.set(80, Int64(999_999_999))
        mark.set(88, UInt32(32))
        mark.bytes.replaceSubrange(128..<384, with: [UInt8](repeating: 0xFF, count: 255) + [0])
        let read = try #require(CrashMark(bytes: mark.bytes))
        #expect(read.signalName == "signal 64" && read.uncommitted == Int64.max && read.buildID?.count == 64)
        #expect(read.image?.unicodeScalars.allSatisfy { $0 == "\u{FFFD}" } == true)
        #expect(!read.summary.isEmpty)
        // Written 9 of 8 handed off (the two counters are stored apart): none lost, not -1.
        #expect(CrashMark(bytes: CrashMarkBytes().setting(56, Int64(9)))?.uncommitted == 0)
        // No image: no offset or build id either.
        var bare = CrashMarkBytes()
        bare.bytes.replaceSubrange(128..<384, with: [UInt8](repeating: 0, count: 256))
        let unplaced = try #require(CrashMark(bytes: bare.bytes))
        #expect(unplaced.image == nil && unplaced.imageOffset == nil && unplaced.buildID == nil)
    }

    @Test("the last reduced action reads with its source and case, cut texts marked; an older one, or none, reads as not known")
    func lastReduced() throws {
        let whole = try #require(CrashMark(bytes: CrashMarkBytes().reducing()))
        let last = try #require(whole.lastReduced)
        #expect(last == CrashMark.ReducedAction(
            actionCase: "cart.remove", file: "Shop/CartView.swift", line: 42, column: 9, origin: .call, committed: false
        ))
        #expect(whole.summary == "SIGSEGV at 0x10 in my-app+0x1234 (3 actions reduced, never committed); last reduced: cart.remove from Shop/CartView.swift:42:9 (never committed)")
        // Not named yet; an effect's; committed (written 8 of 8).
        let unnamed = try #require(CrashMark(bytes: CrashMarkBytes().reducing(origin: 3, actionCase: nil))?.lastReduced)
        #expect(unnamed.actionCase == nil && unnamed.origin == .effect && unnamed.summary == "an action of unknown case from Shop/CartView.swift:42:9 [effect] (never committed)")
        var written = CrashMarkBytes()
        written.set(56, Int64(8))
        #expect(CrashMark(bytes: written.reducing())?.lastReduced?.committed == true)
        // Full fields, cut: `…` where the text was cut; invalid UTF-8 read as U+FFFD, no trap.
        let cut = try #require(CrashMark(bytes: CrashMarkBytes().reducing(
            file: [UInt8](repeating: 0x61, count: 48), fileLength: 48 | 0x80, line: .max, column: .max,
            origin: 0, actionCase: [UInt8](repeating: 0xFF, count: 61), caseLength: 61 | 0x80
        ))?.lastReduced)
        #expect(cut.file == "…" + String(repeating: "a", count: 48) && cut.line == UInt(UInt32.max) && cut.origin == nil)
        #expect(cut.actionCase?.hasSuffix("\u{FFFD}…") == true)
        // Zeros (a mark from before the field), or an action older than the last handed off.
        #expect(CrashMark(bytes: CrashMarkBytes().bytes)?.lastReduced == nil)
        #expect(CrashMark(bytes: CrashMarkBytes().reducing(index: 7))?.lastReduced == nil)
        #expect(CrashMark(bytes: CrashMarkBytes().reducing(index: .max))?.lastReduced == nil)
        // Every origin reads back as the dispatch path stored it.
        for origin in ActionSource.Origin.allCases {
            #expect(CrashMark(bytes: CrashMarkBytes().reducing(origin: CrashMark.code(of: origin)))?.lastReduced?.origin == origin)
        }
        // Kept where a store keeps a mark (JSON), and read back the same.
        let stored = try #require(CrashMark(storedText: whole.storedText))
        #expect(stored == whole)
    }

    @Test("the next writer calls a session crashed for a whole mark, unclean for anything else in its lock file, a FIFO included")
    func nextWriter() throws {
        let crashed = try CrashMarkBytes.ending(withLockFile: CrashMarkBytes().bytes)
        #expect(crashed?.kind == .crashed && crashed?.crash == CrashMark(bytes: CrashMarkBytes().bytes) && crashed?.time == 1_795_813_821.5, "\(String(describing: crashed))")
        let empty = try CrashMarkBytes.ending(withLockFile: nil)
        #expect(empty?.kind == .unclean, "\(String(describing: empty))")
        #expect(try CrashMarkBytes.ending(withLockFile: Array(CrashMarkBytes().bytes.dropLast()))?.kind == .unclean)
        #expect(try CrashMarkBytes.ending(withLockFile: CrashMarkBytes().setting(8, UInt32(2)))?.kind == .unclean)
        let unclean = try CrashMarkBytes.ending(withLockFile: nil, fifo: true)
        #expect(unclean?.kind == .unclean && unclean?.crash == nil && unclean?.seq == 1)
    }
}
