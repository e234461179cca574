import Foundation
public import Rewind
import RewindCoding
public import Synchronization

/// Notices a store stuck inside one action — its reducer, or a middleware hook between the
/// recorder's two — for longer than ``RecorderConfiguration/hangLimit``.
///
/// The dispatch path tells it each action it enters (``enter(_:)``) and leaves (``leave()``):
/// an uncontended lock to keep the action (to name a hang) and a few atomic operations, no
/// clock read and no wake-up.
/// A thread of its own looks every quarter of the limit (between 10 ms and 1 s) while the
/// store is busy, and sleeps while it is idle (the first action after wakes it), so an idle
/// app pays no timer.
///
/// When the same action is still under way after the limit, the watchdog writes a
/// ``HangMark`` into the session's lock file (with crash marks on), which the log's next writer
/// reads if the process never comes out of it (``SessionEnding/Kind/hung``). If the action
/// ends, the watchdog clears the mark, and the dispatch path hands the action to the writer
/// noted as hung: with reports on, that is a trigger (``ReportReason/Kind/hang``).
@usableFromInline
final class HangWatchdog<Action: Sendable>: Sendable {
    let limit: Duration
    /// Actions entered so far, and left: inside one while they differ.
    @usableFromInline let entered = Atomic<UInt64>(0)
    @usableFromInline let left = Atomic<UInt64>(0)
    /// The action entered last, for naming a hang. Written by the dispatch path only; read by
    /// the watchdog only while that action is still under way.
    @usableFromInline let current = Mutex<DispatchedAction<Action>?>(nil)
    /// Whether the watchdog sleeps until the next action.
    @usableFromInline let parked = Atomic<Bool>(false)
    private let wake = DispatchSemaphore(value: 0)
    /// The number of the action found hung (0: none), and its mark.
    @usableFromInline let hungAction = Atomic<UInt64>(0)
    private let hang = Mutex<HangMark?>(nil)
    private let stopped = Atomic<Bool>(false)
    private let crashMarking: CrashMarking?
    private let clock: @Sendable () -> Date

    /// A watchdog for actions over `limit`; it starts with ``start()``.
    init(limit: Duration, crashMarking: CrashMarking?, clock: @escaping @Sendable () -> Date) {
        self.limit = limit
        self.crashMarking = crashMarking
        self.clock = clock
    }

    /// The dispatch path, before the reducer.
    @inlinable
    func enter(_ dispatched: DispatchedAction<Action>) {
        current.withLock { $0 = dispatched }
        // Sequentially consistent with the watchdog's parking (it sets `parked`, then reads
        // `entered`): either it sees this action, or this sees it parked and wakes it.
        entered.store(entered.load(ordering: .relaxed) &+ 1, ordering: .sequentiallyConsistent)
        if parked.load(ordering: .sequentiallyConsistent) { unpark() }
    }

    /// The dispatch path, once the reducer (and the hooks between the recorder's) ran: the
    /// hang's mark when the watchdog found this action hung.
    @inlinable
    func leave() -> HangMark? {
        let number = entered.load(ordering: .relaxed)
        // Sequentially consistent with the watchdog's finding (it sets `hungAction`, then
        // reads `left`): either this sees the hang, or the watchdog sees it ended.
        left.store(number, ordering: .sequentiallyConsistent)
        guard hungAction.load(ordering: .sequentiallyConsistent) == number else { return nil }
        return takeHang()
    }

    @usableFromInline
    func unpark() {
        if parked.compareExchange(expected: true, desired: false, ordering: .sequentiallyConsistent).exchanged { wake.signal() }
    }

    @usableFromInline
    func takeHang() -> HangMark? {
        hungAction.store(0, ordering: .relaxed)
        return hang.withLock { mark in
            defer { mark = nil }
            return mark
        }
    }

    /// Starts the watchdog's thread.
    func start() {
        let thread = Thread { [self] in watch() }
        thread.name = "RewindLog.hangWatchdog"
        thread.start()
    }

    /// Stops the thread (the recorder is closing); a hang under way is left as marked.
    func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        parked.store(false, ordering: .sequentiallyConsistent)
        wake.signal()
    }

    private func watch() {
        let interval = min(max(limit / 4, .milliseconds(10)), .seconds(1))
        let namer = ActionCaseName.namer(for: Action.self)
        var watching: UInt64 = 0, since = ContinuousClock.now, sinceDate = Date()
        var marked = false, found: UInt64 = 0, idleRounds = 0
        while !stopped.load(ordering: .relaxed) {
            _ = wake.wait(timeout: .now() + interval.inSeconds)
            let inside = entered.load(ordering: .acquiring), done = left.load(ordering: .acquiring)
            if marked && (done >= watching || inside != watching) {
                // Out of it: the session is no longer stuck.
                crashMarking?.writeNote([UInt8](repeating: 0, count: HangMark.size))
                marked = false
            }
            guard inside != done else {
                idleRounds += 1
                if idleRounds >= 4 { park() }
                continue
            }
            idleRounds = 0
            guard inside == watching else {
                // The wall time first: the mark's `detected - began` is then never less than
                // the monotonic time the limit was checked against.
                sinceDate = clock()
                (watching, since) = (inside, .now)
                continue
            }
            guard found != watching, ContinuousClock.now - since >= limit,
                  let dispatched = current.withLock({ $0 }), entered.load(ordering: .acquiring) == watching else { continue }
            found = watching
            let mark = HangMark(
                actionCase: namer(dispatched.action), source: dispatched.source, began: sinceDate.timeIntervalSince1970,
                detected: max(clock().timeIntervalSince1970, sinceDate.timeIntervalSince1970), limit: limit.inSeconds,
                processID: UInt32(truncatingIfNeeded: ProcessInfo.processInfo.processIdentifier)
            )
            hang.withLock { $0 = mark }
            hungAction.store(watching, ordering: .sequentiallyConsistent)
            // Left meanwhile, before it could see `hungAction`: it was handed off without
            // the note, and the hang is over.
            if left.load(ordering: .sequentiallyConsistent) >= watching {
                _ = takeHang()
                continue
            }
            marked = crashMarking?.writeNote(mark.bytes) ?? false
        }
    }

    /// Sleeps until the next action, unless one came meanwhile.
    private func park() {
        parked.store(true, ordering: .sequentiallyConsistent)
        if entered.load(ordering: .sequentiallyConsistent) != left.load(ordering: .sequentiallyConsistent) || stopped.load(ordering: .relaxed) {
            unpark()
            return
        }
        wake.wait()
        parked.store(false, ordering: .sequentiallyConsistent)
    }
}
