internal import CRewindCrash
public import Rewind
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a recorder keeps current for the crash hook: its session's mark file, registered in one
/// of the handler's slots, and the counters a mark records (actions handed off, written, the
/// last seq committed).
///
/// The dispatch path calls ``noteHandedOff(_:)`` (one relaxed atomic store); the writer thread
/// calls the rest.
@usableFromInline
final class CrashMarking: @unchecked Sendable {
    // Unchecked: `counters` is written with atomic stores only (`rewind_crash_note_…`), each
    // field by one thread; `slot` is touched by the writer thread only, which owns this.
    private let counters: UnsafeMutablePointer<rewind_crash_counters>
    private var slot: Int32 = -1

    /// Counters ready for a session's mark; `nil` when out of memory.
    init?() {
        guard let counters = rewind_crash_counters_create() else { return nil }
        self.counters = counters
    }

    deinit {
        follow(nil)
        rewind_crash_counters_destroy(counters)
    }

    /// Registers `descriptor` (a session's mark file, open for writing; this takes it over) in
    /// place of the session followed until now; `nil` stops following any.
    func follow(_ descriptor: Int32?) {
        if slot >= 0 {
            rewind_crash_unregister(slot)
            slot = -1
        }
        guard let descriptor else { return }
        slot = rewind_crash_register(descriptor, counters)
        if slot < 0 { close(descriptor) }
    }

    /// The dispatch path, under the buffer's lock: `count` actions handed off so far, the last
    /// from `source`. (Its case is named later, on the writer thread: ``noteNamed(_:actionCase:)``.)
    @usableFromInline
    func noteHandedOff(_ count: UInt64, source: ActionSource) {
        let index = Int64(truncatingIfNeeded: count)
        rewind_crash_note_handed_off(counters, index)
        let line = UInt32(clamping: source.line)
        let column = UInt32(clamping: source.column)
        let origin = CrashMark.code(of: source.origin)
        // A `#fileID` is a literal: its bytes are at hand without a copy. A file that is not
        // (bridged from an `NSString`) is left out rather than copied on the dispatch path.
        let noted: Void? = source.file.utf8.withContiguousStorageIfAvailable { file in
            rewind_crash_note_reduced(counters, index, file.baseAddress, file.count, line, column, origin)
        }
        if noted == nil { rewind_crash_note_reduced(counters, index, nil, 0, line, column, origin) }
    }

    /// The writer thread: action `index` (as ``noteHandedOff(_:source:)`` counted it) is of
    /// case `actionCase`.
    func noteNamed(_ index: UInt64, actionCase: String) {
        var name = actionCase
        name.withUTF8 { rewind_crash_note_named(counters, Int64(truncatingIfNeeded: index), $0.baseAddress, $0.count) }
    }

    /// Writes `bytes` (a whole mark, ``CrashMark/size`` of them) into the mark file of the
    /// session followed, from outside a signal handler (the hang watchdog's thread); `false`
    /// when no session is followed, or a crash is being marked.
    @discardableResult
    func writeNote(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { rewind_crash_write_note(counters, $0.baseAddress, Int32($0.count)) } == 1
    }

    /// The writer: `count` actions written so far, the last committed seq `lastSeq`.
    func noteWritten(_ count: UInt64, lastSeq: Int64) {
        rewind_crash_note_written(counters, Int64(truncatingIfNeeded: count), lastSeq)
    }
}
