/// The ids of values looked up lately, one value a slot, in front of a dictionary that holds
/// them all: a look-up that hits costs a comparison where the dictionary hashes the whole value.
///
/// The recorder's writer looks up each event's call site and case name (``InternedRows``), and
/// they repeat: the same few call sites and cases. Interning them, most of it hashing, was
/// 5.5 % of the writer thread in a profile (`rewind-bench --workload record --codec binary`,
/// `perf --call-graph dwarf`); with this in front, 1.6 %. A slot is chosen by a cheap function
/// of the value (a call site's line and column, a name's length and last byte), not by a hash
/// of all of it; a value that misses goes to the dictionary, so values crafted to share a slot
/// cost one comparison each, never a search. (Tried in front of the shared payloads' sightings
/// too, and dropped: most payloads long enough to share are seen once or twice, so reading a
/// payload's bytes for its slot cost more than the hits saved.)
struct RecentIDs<Value: Equatable> {
    /// Slots: a power of two. More call sites or cases than this repeat in turn in few apps'
    /// hot paths; each slot costs a value and an id.
    static var slotCount: Int { 64 }

    private var entries: [(value: Value, id: Int64)?] = Array(repeating: nil, count: Self.slotCount)

    init() {}

    /// The id remembered for `value` in slot `slot` (any integer: reduced to a slot here).
    func id(for value: Value, slot: Int) -> Int64? {
        guard let entry = entries[slot & (Self.slotCount - 1)], entry.value == value else { return nil }
        return entry.id
    }

    /// Remembers `value`'s id in its slot, in place of the value there.
    mutating func remember(_ value: Value, id: Int64, slot: Int) {
        entries[slot & (Self.slotCount - 1)] = (value, id)
    }
}
