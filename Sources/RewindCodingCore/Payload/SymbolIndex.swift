/// A read-only map from coding-key names to symbol ids, made for the encoder's hot path.
///
/// Written by hand rather than using `[String: UInt32]` because the look-up is measurably the
/// encoder's largest cost: a payload looks up three to six keys, and `String`'s hashing (a
/// seeded SipHash with Unicode checks) made up about a fifth of the recorder's encoding time.
/// Keys are short ASCII-like names, so a byte-wise FNV-1a hash, open addressing and a byte
/// comparison do the same job several times faster. Names are compared as UTF-8 bytes, which
/// for these identifiers is what `String` equality means too.
///
/// It is a value built in one go from the table's names and never mutated, so an encoding pass
/// can hold it without a lock.
struct SymbolIndex: Sendable {
    /// Per slot: the entry's position in `entries` plus one, or 0 when empty.
    private var slots: [UInt32]
    private var entries: [Entry] = []
    /// Every name's UTF-8 bytes, one after another.
    private var storage: [UInt8] = []

    private struct Entry {
        var hash: UInt64
        var start: Int
        var count: Int
        var id: UInt32
    }

    init(names: [String: UInt32]) {
        var capacity = 16
        while capacity < names.count * 2 { capacity *= 2 }
        slots = Array(repeating: 0, count: capacity)
        entries.reserveCapacity(names.count)
        for (name, id) in names {
            var name = name
            name.withUTF8 { bytes in
                let hash = Self.hash(bytes)
                entries.append(Entry(hash: hash, start: storage.count, count: bytes.count, id: id))
                storage.append(contentsOf: bytes)
                var slot = Int(truncatingIfNeeded: hash) & (capacity - 1)
                while slots[slot] != 0 { slot = (slot + 1) & (capacity - 1) }
                slots[slot] = UInt32(entries.count)
            }
        }
    }

    /// The id of `name`, or `nil` when the index does not hold it.
    func id(for name: String) -> UInt32? {
        if let id = name.utf8.withContiguousStorageIfAvailable({ id(forUTF8: $0) }) { return id }
        return Array(name.utf8).withUnsafeBufferPointer { id(forUTF8: $0) }
    }

    private func id(forUTF8 bytes: UnsafeBufferPointer<UInt8>) -> UInt32? {
        let hash = Self.hash(bytes)
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        return entries.withUnsafeBufferPointer { entries in
            storage.withUnsafeBufferPointer { storage in
                while true {
                    let position = slots[slot]
                    if position == 0 { return nil }
                    let entry = entries[Int(position) - 1]
                    if entry.hash == hash, entry.count == bytes.count, Self.equal(storage, from: entry.start, bytes) {
                        return entry.id
                    }
                    slot = (slot + 1) & mask
                }
            }
        }
    }

    private static func equal(_ storage: UnsafeBufferPointer<UInt8>, from start: Int, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for offset in 0..<bytes.count where storage[start + offset] != bytes[offset] { return false }
        return true
    }

    /// FNV-1a, 64 bits.
    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
