extension BinaryReader {
    /// An entry's key where its bytes are: in the log's names (a symbol) or in the payload (a
    /// key written inline). Borrowed for one decode.
    @usableFromInline
    struct EntryKey {
        // Two words (a pointer, a count and a flag), so that an entry's key and its range, four
        // words, come back from `nextEntry` in registers rather than through memory.
        @usableFromInline let start: UnsafePointer<UInt8>
        @usableFromInline let count: Int32
        /// Whether every byte is ASCII (see ``spells(_:)``).
        @usableFromInline let isASCII: Bool

        @inlinable
        init(start: UnsafePointer<UInt8>, count: Int, isASCII: Bool) {
            self.start = start
            self.count = Int32(truncatingIfNeeded: count)
            self.isASCII = isASCII
        }

        /// Whether this key is `name`, as `String`'s `==` would say: byte for byte when both are
        /// ASCII (the usual case), and as strings otherwise, where canonical equivalence may
        /// make different bytes equal (a Kelvin sign and a `K`) — so generated code and
        /// `Codable` read the same fields whatever the bytes.
        @inlinable @inline(__always)
        func spells(_ name: StaticString) -> Bool {
            // A one-character literal may be a `StaticString` of one scalar, without bytes.
            guard isASCII, name.hasPointerRepresentation, name.isASCII else { return spellsAsString(name) }
            let count = Int(self.count)
            guard name.utf8CodeUnitCount == count else { return false }
            let key = name.utf8Start
            for index in 0..<count where key[index] != start[index] { return false }
            return true
        }

        @usableFromInline
        func spellsAsString(_ name: StaticString) -> Bool {
            string == "\(name)"
        }

        /// The key as a string (valid UTF-8: a symbol's name was one, an inline key is checked).
        @usableFromInline
        var string: String {
            String(decoding: UnsafeBufferPointer(start: start, count: Int(count)), as: UTF8.self)
        }
    }

    /// The case of an enum value being read: ask ``BinaryReader/isCase(_:_:)`` which it is.
    public struct EnumCase {
        @usableFromInline let key: EntryKey

        @inlinable
        init(key: EntryKey) {
            self.key = key
        }
    }
}
