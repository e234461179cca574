import Foundation
public import Rewind
import RewindCodingCore
public import Synchronization

/// Notices a store stuck inside one action — its reducer, or a middleware hook between the
/// recorder's two — for longer than ``RecorderConfiguration/hangLimit``.
///
/// The dispatch path tells it each action it enters (``enter(_:)``) and leaves (``leave()``):
/// a copy of the action into one of two slots, and plain stores and loads of counters — no lock,
/// no clock read, no wake-up, and (on Linux) no locked instruction: its hand-shakes with the
/// watchdog's thread are ``AsymmetricFence``s, whose cost falls on the watchdog.
/// A thread of its own looks every quarter of the limit (between 10 ms and 1 s) while the
/// store is busy, and sleeps while it is idle (the first action after wakes it), so an idle
/// app pays no timer.
///
/// When the same action is still under way after the limit, the watchdog writes a
/// ``HangMark`` into the session's lock file (with crash marks on), which the log's next writer
/// reads if the process never comes out of it (``SessionEnding/Kind/hung``). If the action
/// ends, the watchdog clears the mark, and the dispatch path hands the action to the writer
/// noted as hung: with reports on, that is a trigger (``ReportReason/Kind/hang``).
///
/// The action under way is named from its slot: action `n` is written there before `n` is
/// counted entered. The watchdog copies it only while `n` has not left, and pins it meanwhile: a
/// dispatch path leaving a pinned action waits for the copy (only ever after a hang that ended
/// as it was being named). Once `n` has left, the slot is the dispatch path's again: the
/// recorder moves the action out of it into its hand-off (``takeAction(ticket:cause:)``), so an action is
/// copied once on the dispatch path, not once for the watchdog and once for the writer.
@usableFromInline
final class HangWatchdog<Action: Sendable>: @unchecked Sendable {
    // Unchecked: `slot` is written by the dispatch path only (one action at a time), and read
    // by the watchdog's thread only under the pin described above.
    let limit: Duration
    /// Actions entered so far, and left: inside one while they differ. Written by the dispatch
    /// path only.
    @usableFromInline let entered = Atomic<UInt64>(0)
    @usableFromInline let left = Atomic<UInt64>(0)
    /// The last action whose hand-off is over (pushed to the writer, let go or refused), or
    /// that will not be handed off (its reducer threw): the recorder's writer, ending a session
    /// for a suspension, waits while it is behind `entered` (see `RecorderWriter`). Written by
    /// the dispatch path only, after `left`.
    @usableFromInline let settled = Atomic<UInt64>(0)
    /// The action entered last, until the recorder takes it once it has left; initialized
    /// while `occupied`. (Not an optional: `Optional`'s checks and moves of an app's action run
    /// through its value witnesses, which cost more than the copy this saves.)
    @usableFromInline let slot: UnsafeMutablePointer<DispatchedAction<Action>>
    /// Whether `slot` holds an action. Read and written by the dispatch path only.
    // Unchecked: a dynamic exclusivity check on each dispatch would cost more than the flag.
    @exclusivity(unchecked) @usableFromInline var occupied = false
    /// The number of the action whose slot the watchdog is copying (0: none).
    @usableFromInline let pinned = Atomic<UInt64>(0)
    /// Whether the watchdog sleeps until the next action.
    @usableFromInline let parked = Atomic<Bool>(false)
    private let wake = DispatchSemaphore(value: 0)
    /// The number of the action found hung (0: none), and its mark.
    @usableFromInline let hungAction = Atomic<UInt64>(0)
    private let hang = Mutex<HangMark?>(nil)
    private let stopped = Atomic<Bool>(false)
    private let crashMarking: CrashMarking?
    private let clock: @Sendable () -> Date
    @usableFromInline let fence = AsymmetricFence.process

    /// A watchdog for actions over `limit`; it starts with ``start()``.
    init(limit: Duration, crashMarking: CrashMarking?, clock: @escaping @Sendable () -> Date) {
        self.limit = limit
        self.crashMarking = crashMarking
        self.clock = clock
        slot = .allocate(capacity: 1)
    }

    deinit {
        if occupied { slot.deinitialize(count: 1) }
        slot.deallocate()
    }

    /// The dispatch path, before the reducer.
    @inlinable
    func enter(_ dispatched: DispatchedAction<Action>) {
        let previous = entered.load(ordering: .relaxed)
        // An action entered and never left (a tap's caller that broke its contract): leave it
        // first, so that the watchdog is not copying the slot this overwrites.
        if left.load(ordering: .relaxed) != previous {
            if leave() { _ = takeHang() }
            settle()
        }
        let number = previous &+ 1
        if occupied {
            slot.pointee = dispatched
        } else {
            slot.initialize(to: dispatched)
            occupied = true
        }
        entered.store(number, ordering: .releasing)
        // Against the watchdog's parking (it sets `parked`, then reads `entered`): either it
        // sees this action, or this sees it parked and wakes it.
        fence.light()
        if parked.load(ordering: .relaxed) { unpark() }
    }

    /// The dispatch path, once the reducer (and the hooks between the recorder's) ran: whether
    /// the watchdog found this action hung, its mark then to be taken with ``takeHang()``.
    /// (A `Bool`, not the mark: checking an optional mark on every dispatch ran through value
    /// witnesses.)
    @inlinable
    @discardableResult
    func leave() -> Bool {
        let number = entered.load(ordering: .relaxed)
        left.store(number, ordering: .releasing)
        // Against the watchdog's finding (it sets `hungAction` or `pinned`, then reads `left`):
        // either this sees the hang and the pin, or the watchdog sees it ended.
        fence.light()
        // (0 is no pin, and no action.)
        if pinned.load(ordering: .relaxed) == number { waitForCopy(of: number) }
        return hungAction.load(ordering: .relaxed) == number
    }

    /// The dispatch path, once the action that last left is handed off (or never will be).
    /// A store with release ordering, a plain one on x86 and one instruction on ARM.
    @inlinable
    func settle() {
        settled.store(left.load(ordering: .relaxed), ordering: .releasing)
    }

    /// How many actions have entered, for a thread that stored something the dispatch path
    /// looks at after `enter`, then called ``AsymmetricFence/heavy()``: an action not counted
    /// here sees that store.
    var enteredCount: UInt64 {
        entered.load(ordering: .acquiring)
    }

    /// Whether the first `count` actions are settled: handed off (their items in the ring, seen
    /// by a load of its count after this), or never to be.
    func hasSettled(_ count: UInt64) -> Bool {
        settled.load(ordering: .acquiring) >= count
    }

    /// Whether the action that last left is still in its slot, for ``takeAction(ticket:cause:)``.
    @inlinable
    var holdsAction: Bool { occupied }

    /// Lets go of the action that last left, when the recorder will not take it (its reducer
    /// threw): a later `didReduce` without a `willReduce` must not find it.
    @usableFromInline
    func dropAction() {
        guard occupied else { return }
        occupied = false
        slot.deinitialize(count: 1)
    }

    /// The action that last left, moved out of its slot, with the ticket and cause given: only
    /// after ``leave()``, before the next ``enter(_:)``, and while ``holdsAction``.
    @inlinable
    func takeAction(ticket: ActionTicket, cause: ActionCause?) -> DispatchedAction<Action> {
        occupied = false
        var action = slot.move()
        action.ticket = ticket
        action.cause = cause
        return action
    }

    @usableFromInline
    func waitForCopy(of number: UInt64) {
        while pinned.load(ordering: .acquiring) == number { sched_yield() }
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

    /// A copy of action `number`, if it is still under way (see the type's discussion).
    private func copy(of number: UInt64) -> DispatchedAction<Action>? {
        pinned.store(number, ordering: .relaxed)
        fence.heavy()
        defer { pinned.store(0, ordering: .releasing) }
        guard entered.load(ordering: .acquiring) == number, left.load(ordering: .relaxed) < number else { return nil }
        return slot.pointee
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
            guard found != watching, ContinuousClock.now - since >= limit, let dispatched = copy(of: watching) else { continue }
            found = watching
            let mark = HangMark(
                actionCase: namer(dispatched.action), source: dispatched.source, began: sinceDate.timeIntervalSince1970,
                detected: max(clock().timeIntervalSince1970, sinceDate.timeIntervalSince1970), limit: limit.inSeconds,
                processID: UInt32(truncatingIfNeeded: ProcessInfo.processInfo.processIdentifier)
            )
            hang.withLock { $0 = mark }
            hungAction.store(watching, ordering: .relaxed)
            fence.heavy()
            // Left meanwhile, before it could see `hungAction`: it was handed off without
            // the note, and the hang is over.
            if left.load(ordering: .relaxed) >= watching {
                _ = takeHang()
                continue
            }
            marked = crashMarking?.writeNote(mark.bytes) ?? false
        }
    }

    /// Sleeps until the next action, unless one came meanwhile.
    private func park() {
        parked.store(true, ordering: .relaxed)
        fence.heavy()
        if entered.load(ordering: .relaxed) != left.load(ordering: .relaxed) || stopped.load(ordering: .relaxed) {
            unpark()
            return
        }
        wake.wait()
        parked.store(false, ordering: .sequentiallyConsistent)
    }
}
