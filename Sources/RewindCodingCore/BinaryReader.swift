/// Reads one payload in the binary codec's format (see ``BinaryWriter``), for generated
/// ``BinaryCodable`` code.
///
/// The reader is a cursor over the payload's bytes, borrowed from SQLite for the length of one
/// decode: nested values are read by narrowing the cursor to their bytes, never by copying them
/// or making a decoder per level. Every read is bounds-checked, so damaged bytes make a
/// `DecodingError`, never a crash. Keys may come in any order and unknown keys are skipped, as
/// with `Codable`; in-order keys (the usual case) are found without searching. Keys and enum
/// cases are `StaticString`s, found by comparing their bytes with the log's names, which a
/// decoding pass keeps in one block: no `String` is made for a key that is found.
///
/// The reading paths are `@inlinable`, so the generated code in the app's module specialises
/// them for its field types instead of calling unspecialised generic code per field (in a
/// profile of replay, that generic code and its metadata look-ups were most of decoding).
/// Errors are built out of line.
public struct BinaryReader {
    @usableFromInline let bytes: UnsafeRawBufferPointer
    /// The next byte to read.
    @usableFromInline var position: Int
    /// The end of the value being read.
    @usableFromInline var end: Int
    /// The log's key symbols. Borrowed for one decode, as `bytes` is: whoever makes the reader
    /// keeps them alive past it.
    @usableFromInline unowned(unsafe) let symbols: SymbolNames
    /// Borrowed for one decode, as `bytes` is: whoever makes the reader keeps the context alive
    /// past it (the codec's decoder, which is the context). Unretained, so that a decode does
    /// not retain and release it (replay makes one reader per action).
    @usableFromInline unowned(unsafe) let context: any BinaryDecodingContext
    /// Guards against stack exhaustion on crafted input for recursive types.
    @usableFromInline var depth = 0
    @usableFromInline static let maximumDepth = 512

    package init(bytes: UnsafeRawBufferPointer, names: SymbolNames, context: any BinaryDecodingContext) {
        self.bytes = bytes
        position = 0
        end = bytes.count
        symbols = names
        self.context = context
    }

    /// The log's key names, `names[symbol - 1]`, for `Codable`'s decoder.
    var names: [String] { symbols.strings }

    /// Whether the whole value has been read.
    package var isAtEnd: Bool { position == end }

    // MARK: Keyed containers

    /// Opens the current value as a keyed container.
    @inlinable
    public mutating func keyedContainer() throws -> KeyedContainer {
        let count = try readVarInt()
        guard count <= UInt64(end - position) else { throw corrupt("a container claims \(count) entries in \(end - position) bytes") }
        guard end <= Int(Int32.max) else { throw corrupt("a container ending \(end) bytes in, past 2 GiB") }
        let container = KeyedContainer(start: position, end: end, count: Int(count))
        position = end
        return container
    }

    /// Opens the current value as an enum's: its one key names the case (ask ``isCase(_:_:)``
    /// which), and the case's associated values are a keyed container under it.
    @inlinable
    public mutating func enumCase(of type: Any.Type) throws -> (choice: EnumCase, values: KeyedContainer) {
        var outer = try keyedContainer()
        guard outer.count == 1 else { throw notOneCase(type, found: outer.count) }
        let entry = outer.cursor
        let (key, range) = try nextEntry(in: &outer)
        let (savedPosition, savedEnd) = (position, end)
        (position, end) = (range.lowerBound, range.upperBound)
        defer { (position, end) = (savedPosition, savedEnd) }
        do {
            var values = try keyedContainer()
            values.caseEntry = entry
            return (EnumCase(key: key), values)
        } catch {
            throw Self.prefixed(error, with: key.string)
        }
    }

    /// Whether the enum value's case is `name`.
    @inlinable @inline(__always)
    public func isCase(_ choice: EnumCase, _ name: StaticString) -> Bool {
        choice.key.spells(name)
    }

    @usableFromInline
    func notOneCase(_ type: Any.Type, found count: Int) -> DecodingError {
        .typeMismatch(type, .init(codingPath: [], debugDescription: "an enum value has one key, found \(count)"))
    }

    /// A decoding error one level further down (under `key`); other errors as they are.
    @usableFromInline
    static func prefixed(_ error: any Error, with key: String) -> any Error {
        (error as? DecodingError)?.prefixed(with: BinaryCodingKey(key)) ?? error
    }

    /// The error for a case the enum does not have.
    public func unknownCase(_ choice: EnumCase, of type: Any.Type) -> any Error {
        let name = choice.key.string
        return DecodingError.dataCorrupted(.init(codingPath: [BinaryCodingKey(name)], debugDescription: "\(type) has no case '\(name)'"))
    }

    /// The error for a raw value the enum has no case for.
    public func invalidRawValue(_ rawValue: some Any, of type: Any.Type) -> any Error {
        DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "\(type) has no case with raw value \(rawValue)"))
    }

    /// Reads the value of `key`.
    @inlinable
    public mutating func decode<T: BinaryCodable>(_ type: T.Type = T.self, forKey key: StaticString, in container: inout KeyedContainer) throws -> T {
        guard let range = try find(key, in: &container) else { throw keyNotFound(key, in: container) }
        return try decodeValue(in: range, at: container, key) { try T(binary: &$0) }
    }

    /// Reads the value of `key` through its type's `Codable` conformance (a type without the macro).
    public mutating func decode<T: Decodable>(_ type: T.Type = T.self, forKey key: StaticString, in container: inout KeyedContainer) throws -> T {
        guard let range = try find(key, in: &container) else { throw keyNotFound(key, in: container) }
        return try decodeValue(in: range, at: container, key) { try Self.readWithCodable(&$0) as T }
    }

    /// Reads the value of `key`, or `nil` when the key is absent or holds `nil` (as
    /// `decodeIfPresent` does).
    @inlinable
    public mutating func decodeIfPresent<T: BinaryCodable>(_ type: T.Type = T.self, forKey key: StaticString, in container: inout KeyedContainer) throws -> T? {
        guard let range = try find(key, in: &container), !range.isEmpty else { return nil }
        return try decodeValue(in: range, at: container, key) { try T(binary: &$0) }
    }

    /// Reads the value of `key` through `Codable`, or `nil` when it is absent or `nil`.
    public mutating func decodeIfPresent<T: Decodable>(_ type: T.Type = T.self, forKey key: StaticString, in container: inout KeyedContainer) throws -> T? {
        guard let range = try find(key, in: &container), !range.isEmpty else { return nil }
        return try decodeValue(in: range, at: container, key) { try Self.readWithCodable(&$0) as T }
    }

    /// Reads the whole current value through its type's `Codable` conformance.
    private static func readWithCodable<T: Decodable>(_ reader: inout BinaryReader) throws -> T {
        defer { reader.position = reader.end }
        return try reader.context.decodeWithCodable(T.self, from: reader.bytes, in: reader.position..<reader.end, names: reader.names)
    }

    /// Finds `key`'s entry, searching on from the last one found and wrapping around once.
    ///
    /// This, ``key(of:)``, ``isCase(_:_:)`` and `EntryKey.spells` are always inlined: left to
    /// itself the optimizer called them out of line from the generated readers, which decoded
    /// 3–7 % slower in memory (`rewind-bench --workload json-decoding`, the binary rows, six
    /// runs of each build alternated).
    @inlinable @inline(__always)
    mutating func find(_ key: StaticString, in container: inout KeyedContainer) throws -> Range<Int>? {
        for _ in 0..<container.count {
            if container.cursorIndex == container.count {
                container.cursor = container.start
                container.cursorIndex = 0
            }
            let (name, range) = try nextEntry(in: &container)
            if name.spells(key) { return range }
        }
        return nil
    }

    /// Reads the entry at the container's cursor and moves the cursor past it.
    @inlinable
    func nextEntry(in container: inout KeyedContainer) throws -> (key: EntryKey, range: Range<Int>) {
        var position = container.cursor
        let symbol = try readVarInt(at: &position, end: container.end)
        let key: EntryKey
        if symbol == 0 {
            // A key written inline (a dictionary's, which generated code reads through
            // `Codable`; accepted here too, so no payload is refused for where it sits).
            key = try inlineKey(at: &position, end: container.end)
        } else {
            key = try self.key(of: symbol)
        }
        let length = try readVarInt(at: &position, end: container.end)
        guard length <= UInt64(container.end - position) else { throw corrupt("an entry of \(length) bytes runs past its container") }
        let range = position..<(position + Int(length))
        container.cursor = range.upperBound
        container.cursorIndex += 1
        return (key, range)
    }

    /// The name of the enum case whose values `container` holds, read back from its entry; `nil`
    /// for a container of another kind. For errors only.
    @usableFromInline
    func caseName(of container: KeyedContainer) -> String? {
        guard container.caseEntry >= 0 else { return nil }
        var position = container.caseEntry
        guard let symbol = try? readVarInt(at: &position, end: bytes.count) else { return nil }
        return (symbol == 0 ? try? inlineKey(at: &position, end: bytes.count) : try? key(of: symbol))?.string
    }

    /// A key written inline: its length, then its bytes, which must be UTF-8.
    @usableFromInline
    func inlineKey(at position: inout Int, end: Int) throws -> EntryKey {
        let length = try readVarInt(at: &position, end: end)
        guard length <= UInt64(end - position) else { throw corrupt("a key of \(length) bytes runs past its container") }
        // Not empty: a varint was read from it.
        let start = (bytes.baseAddress! + position).assumingMemoryBound(to: UInt8.self)
        let key = UnsafeRawBufferPointer(start: start, count: Int(length))
        let isASCII = ValidatedUTF8.isASCII(key)
        guard isASCII || String(validating: key, as: UTF8.self) != nil else {
            throw corrupt("a key that is not valid UTF-8")
        }
        position += Int(length)
        return EntryKey(start: start, count: key.count, isASCII: isASCII)
    }

    /// The key of `symbol`, in the log's names.
    @inlinable @inline(__always)
    func key(of symbol: UInt64) throws -> EntryKey {
        guard symbol >= 1, symbol <= UInt64(symbols.count) else { throw unknownSymbol(symbol) }
        let span = symbols.spans[Int(symbol) - 1]
        return EntryKey(start: symbols.utf8 + span.start, count: span.count, isASCII: span.isASCII)
    }

    @usableFromInline
    func unknownSymbol(_ symbol: UInt64) -> DecodingError {
        corrupt("unknown key symbol \(symbol) (this log knows \(symbols.count))")
    }

    @usableFromInline
    func keyNotFound(_ key: StaticString, in container: KeyedContainer) -> DecodingError {
        let path = caseName(of: container).map { [BinaryCodingKey($0)] } ?? []
        return .keyNotFound(BinaryCodingKey("\(key)"), .init(codingPath: path, debugDescription: "no value for key '\(key)'"))
    }

    /// Reads the value in `range` with `read`, which must consume all of it; errors get the
    /// key (and the enum case holding it) in front of their coding path.
    @inlinable
    mutating func decodeValue<T>(in range: Range<Int>, at container: KeyedContainer, _ key: StaticString, _ read: (inout BinaryReader) throws -> T) throws -> T {
        do {
            return try decodeNested(in: range, read)
        } catch {
            let inKey = Self.prefixed(error, with: "\(key)")
            guard let caseKey = caseName(of: container) else { throw inKey }
            throw Self.prefixed(inKey, with: caseKey)
        }
    }

    /// Narrows the reader to `range`, reads it whole with `read`, and widens it back.
    @inlinable
    mutating func decodeNested<T>(in range: Range<Int>, _ read: (inout BinaryReader) throws -> T) throws -> T {
        let (savedPosition, savedEnd) = (position, end)
        (position, end) = (range.lowerBound, range.upperBound)
        depth += 1
        defer {
            (position, end) = (savedPosition, savedEnd)
            depth -= 1
        }
        guard depth <= Self.maximumDepth else { throw corrupt("nested more than \(Self.maximumDepth) levels") }
        let value = try read(&self)
        guard position == end else { throw leftOver() }
        return value
    }

    // MARK: Leaves (the standard conformances)

    @usableFromInline
    func corrupt(_ message: String) -> DecodingError {
        .dataCorrupted(.init(codingPath: [], debugDescription: message))
    }

    @usableFromInline
    func leftOver() -> DecodingError { corrupt("\(end - position) bytes left over after a value") }

    @inlinable
    func readVarInt(at position: inout Int, end: Int) throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < end else { throw corrupt("truncated number") }
            let byte = bytes[position]
            position += 1
            guard shift < 64 else { throw corrupt("number too long") }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
    }

    @inlinable
    mutating func readVarInt() throws -> UInt64 {
        // Through a local: passing `&position` to a method of `self` would copy the reader.
        var position = self.position
        defer { self.position = position }
        return try readVarInt(at: &position, end: end)
    }

    @inlinable
    mutating func readByte() throws -> UInt8 {
        guard position < end else { throw corrupt("truncated value") }
        defer { position += 1 }
        return bytes[position]
    }

    /// The next `count` bytes.
    @inlinable
    mutating func readRaw(_ count: Int) throws -> UnsafeRawBufferPointer {
        guard count <= end - position else { throw corrupt("expected \(count) bytes, found \(end - position)") }
        defer { position += count }
        return UnsafeRawBufferPointer(rebasing: bytes[position..<(position + count)])
    }

    /// A length, then that many bytes.
    @inlinable
    mutating func readCounted() throws -> UnsafeRawBufferPointer {
        let length = try readVarInt()
        guard length <= UInt64(end - position) else { throw corrupt("length \(length) runs past the end") }
        return try readRaw(Int(length))
    }

    /// A list: its count, then each element length-prefixed and read with `read`.
    @inlinable
    mutating func readList<Element>(_ read: (inout BinaryReader) throws -> Element) throws -> [Element] {
        let count = try readVarInt()
        guard count <= UInt64(end - position) else { throw corrupt("a list claims \(count) elements in \(end - position) bytes") }
        var elements: [Element] = []
        elements.reserveCapacity(Int(count))
        for index in 0..<Int(count) {
            do {
                let length = try readVarInt()
                guard length <= UInt64(end - position) else { throw corrupt("an element of \(length) bytes runs past the list") }
                let range = position..<(position + Int(length))
                position = range.upperBound
                elements.append(try decodeNested(in: range, read))
            } catch {
                throw Self.prefixed(error, at: index)
            }
        }
        return elements
    }

    /// A decoding error under list index `index`; other errors as they are.
    @usableFromInline
    static func prefixed(_ error: any Error, at index: Int) -> any Error {
        (error as? DecodingError)?.prefixed(with: BinaryCodingKey(intValue: index)) ?? error
    }
}

extension BinaryReader {
    /// A keyed container being read: where its entries are, and where the last search stopped.
    public struct KeyedContainer {
        // Four words, no reference: a container is returned and passed in registers, and its
        // copies retain nothing. (With the case's name held as a `String?` here it took six
        // words through memory: in a profile of binary read + decode, `enumCase` was an eighth
        // of the samples, most of them at loads of a container its callee had just stored.)
        // Positions fit 32 bits: a container over 2 GiB is refused when it opens.
        @usableFromInline let bounds: (start: Int32, end: Int32)
        @usableFromInline var counts: (count: Int32, cursorIndex: Int32)
        @usableFromInline var cursor: Int
        /// Where the entry of the enum case these are the associated values of starts (its
        /// name is read back from there for an error's coding path); -1 for other containers.
        @usableFromInline var caseEntry: Int

        @inlinable var start: Int { Int(bounds.start) }
        @inlinable var end: Int { Int(bounds.end) }
        @inlinable var count: Int { Int(counts.count) }
        @inlinable var cursorIndex: Int {
            get { Int(counts.cursorIndex) }
            set { counts.cursorIndex = Int32(truncatingIfNeeded: newValue) }
        }

        @inlinable
        init(start: Int, end: Int, count: Int) {
            bounds = (Int32(truncatingIfNeeded: start), Int32(truncatingIfNeeded: end))
            counts = (Int32(truncatingIfNeeded: count), 0)
            cursor = start
            caseEntry = -1
        }
    }
}
