public import Synchronization

/// The recorder's hand-off queue: a bounded ring with one producer (the dispatch path, one
/// action at a time, in the store's order) and one consumer (the writer thread).
///
/// Written by hand rather than taken from a library: none of the packages this one may use
/// has a single-producer queue, and the hand-off's whole point is what it does not do — no
/// lock, no locked instruction, no allocation. Pushing an element is a plain write into its
/// slot and a releasing store of the count (on x86 and arm64 an ordinary store); the consumer
/// reads the count with an acquiring load and moves elements out. The previous hand-off, an
/// array under a `Mutex`, paid two locked instructions per action, and the second waited for
/// the item's stores into lines the writer had last read (a third of the dispatch path's cost
/// in a profile).
///
/// Single producer means no two pushes at once; successive pushes may come from different
/// threads when something orders them (a store's lock, a tap's caller).
@usableFromInline
final class HandOffRing<Element>: @unchecked Sendable {
    // Unchecked: the producer's fields are touched by the producer only, the consumer's by the
    // consumer only; a slot is the producer's until `pushed` covers it, then the consumer's
    // until `taken` does.
    @usableFromInline let storage: UnsafeMutablePointer<Element>
    /// A flag the producer keeps beside each element (the recorder's: whether it is an event),
    /// which the consumer reads without touching the element: in the recorder's writer, whose
    /// code is not specialised for the app's types, each look at an element's case looked its
    /// type's metadata up — about 4 % of the writer thread's time, none since
    /// (`rewind-bench --workload record --codec binary`, profiled).
    @usableFromInline let flags: UnsafeMutablePointer<Bool>
    /// How many elements the ring holds at most.
    @usableFromInline let size: Int
    /// Elements pushed so far: stored by the producer only, releasing.
    @usableFromInline let pushed = Atomic<Int>(0)
    /// Elements taken so far: stored by the consumer only, releasing.
    @usableFromInline let taken = Atomic<Int>(0)
    /// The producer's: the slot of the next push, and `taken` as last read.
    @exclusivity(unchecked) @usableFromInline var writeSlot = 0
    @exclusivity(unchecked) @usableFromInline var knownTaken = 0
    /// The consumer's: the slot of the next element to take.
    @exclusivity(unchecked) @usableFromInline var readSlot = 0

    init(size: Int) {
        precondition(size > 0, "a ring holds at least one element")
        self.size = size
        storage = .allocate(capacity: size)
        flags = .allocate(capacity: size)
        flags.initialize(repeating: false, count: size)
    }

    deinit {
        var slot = readSlot
        for _ in taken.load(ordering: .relaxed)..<pushed.load(ordering: .relaxed) {
            (storage + slot).deinitialize(count: 1)
            slot = slot + 1 == size ? 0 : slot + 1
        }
        storage.deallocate()
        flags.deallocate()
    }

    // MARK: The producer's side

    /// How many elements the ring holds as the producer sees it: never fewer than it does.
    /// `refresh` reads the consumer's count anew; without it, the last count read is used.
    @inlinable
    func countForProducer(refresh: Bool) -> Int {
        if refresh { knownTaken = taken.load(ordering: .acquiring) }
        return pushed.load(ordering: .relaxed) &- knownTaken
    }

    /// Appends `element`, with its flag (``isFlagged(_:)``); the caller has made sure there is
    /// room (``countForProducer(refresh:)`` below `size`). Returns the number of elements
    /// pushed so far, this one included.
    @inlinable
    @discardableResult
    func push(_ element: __owned Element, flagged: Bool) -> Int {
        let count = pushed.load(ordering: .relaxed)
        (storage + writeSlot).initialize(to: element)
        flags[writeSlot] = flagged
        writeSlot = writeSlot + 1 == size ? 0 : writeSlot + 1
        pushed.store(count &+ 1, ordering: .releasing)
        return count &+ 1
    }

    /// Moves the element pushed last back out, once the consumer is gone for good (a recorder
    /// closed while an action was being pushed): `pushed` is then `number - 1` again.
    func reclaimLast(number: Int) -> Element {
        precondition(pushed.load(ordering: .relaxed) == number && taken.load(ordering: .acquiring) < number, "only an untaken last element is reclaimed")
        writeSlot = writeSlot == 0 ? size - 1 : writeSlot - 1
        let element = (storage + writeSlot).move()
        pushed.store(number - 1, ordering: .releasing)
        return element
    }

    // MARK: The consumer's side

    /// How many elements the consumer may take (or look at) now.
    var countForConsumer: Int {
        pushed.load(ordering: .acquiring) &- taken.load(ordering: .relaxed)
    }

    /// What `read` finds in the element `offset` places after the next one to take, read in
    /// place (not copied: a copy of an action retains what it holds); `offset` below a count
    /// the consumer read.
    func peek<Result>(_ offset: Int, _ read: (borrowing Element) -> Result) -> Result {
        let slot = readSlot + offset
        return read(storage[slot >= size ? slot - size : slot])
    }

    /// The flag pushed with the element `offset` places after the next one to take; `offset`
    /// below a count the consumer read.
    func isFlagged(_ offset: Int) -> Bool {
        let slot = readSlot + offset
        return flags[slot >= size ? slot - size : slot]
    }

    /// How many of the next `count` elements (no more than a count the consumer read) were
    /// pushed flagged.
    func flaggedCount(_ count: Int) -> Int {
        var flagged = 0
        for offset in 0..<count where isFlagged(offset) { flagged += 1 }
        return flagged
    }

    /// How many of each run of `chunk` among the next `count` elements were pushed flagged
    /// (the last run may be shorter).
    func flaggedCounts(_ count: Int, every chunk: Int) -> [Int] {
        stride(from: 0, to: count, by: max(1, chunk)).map { start in
            var flagged = 0
            for offset in start..<min(start + max(1, chunk), count) where isFlagged(offset) { flagged += 1 }
            return flagged
        }
    }

    /// Moves the next `count` elements (no more than a count the consumer read) to the end of
    /// `array`, and gives their slots back to the producer.
    func take(_ count: Int, into array: inout [Element]) {
        for _ in 0..<count {
            array.append((storage + readSlot).move())
            readSlot = readSlot + 1 == size ? 0 : readSlot + 1
        }
        taken.store(taken.load(ordering: .relaxed) &+ count, ordering: .releasing)
    }
}
