/// A log's key names for a decoding pass: the strings, and their UTF-8 in one block, so that
/// generated code finds a field or an enum case by comparing a few bytes with its key's
/// `StaticString`, never making or comparing a `String`.
///
/// Made once per change of the symbol table (``SymbolTable/namesAndChanges``) and immutable
/// after. In a profile of binary read + decode (`rewind-bench --workload replay --codec
/// binary`), taking each entry's name as a `String`, comparing it with the key's and destroying
/// it was about a sixth of the samples under the generated readers; by bytes, the todo app's
/// actions decode in memory about 7 % faster (`--workload json-decoding`, alternated).
@usableFromInline
package final class SymbolNames: @unchecked Sendable {
    // @unchecked: the buffers are written in `init` only, and freed in `deinit`.

    /// Where one name's bytes are in `utf8`.
    @usableFromInline
    struct Span {
        @usableFromInline let start: Int
        @usableFromInline let count: Int
        /// Whether every byte is ASCII: a name that is not may equal a key as a `String`
        /// (canonical equivalence) without equal bytes, so it is compared as one.
        @usableFromInline let isASCII: Bool
    }

    /// `strings[id - 1]` is symbol `id`'s name; an empty string is a slot another writer took
    /// and this table has not read yet.
    package let strings: [String]
    /// Every name's UTF-8, one after the other.
    @usableFromInline let utf8: UnsafeMutablePointer<UInt8>
    /// `spans[id - 1]` is symbol `id`'s.
    @usableFromInline let spans: UnsafeMutablePointer<Span>
    /// How many symbols there are.
    @usableFromInline let count: Int

    package init(_ strings: [String]) {
        self.strings = strings
        count = strings.count
        utf8 = .allocate(capacity: max(strings.reduce(0) { $0 + $1.utf8.count }, 1))
        spans = .allocate(capacity: max(strings.count, 1))
        var offset = 0
        for (index, name) in strings.enumerated() {
            let start = offset
            var high: UInt8 = 0
            for byte in name.utf8 {
                utf8[offset] = byte
                offset += 1
                high |= byte
            }
            (spans + index).initialize(to: Span(start: start, count: offset - start, isASCII: high < 0x80))
        }
    }

    deinit {
        spans.deinitialize(count: count)
        spans.deallocate()
        utf8.deallocate()
    }
}
