/// Writes one payload in the binary codec's format (<doc:BinaryFormat>), for generated
/// ``BinaryCodable`` code.
///
/// Lengths come before the bytes they measure, and a value's length is only known once it is
/// written. The writer reserves one byte for each length and fills it in afterwards, moving the
/// bytes along in the rare case a length needs more than one byte (128 bytes or more). That
/// keeps encoding to one growing array, with no tree of containers to measure afterwards.
///
/// As with ``BinaryReader``, the writing paths are `@inlinable` so that generated code
/// specialises them.
public struct BinaryWriter {
    /// The payload so far.
    @usableFromInline package internal(set) var bytes: [UInt8]
    @usableFromInline let context: any BinaryEncodingContext

    package init(context: any BinaryEncodingContext, capacity: Int = 64) {
        self.context = context
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// A writer that appends to `bytes` (an encoder's scratch array, empty with the capacity
    /// its last values needed).
    package init(context: any BinaryEncodingContext, bytes: [UInt8]) {
        self.context = context
        self.bytes = bytes
    }

    // MARK: Keyed containers

    /// Starts a keyed container at the current position. Close it with ``close(_:)``.
    @inlinable
    public mutating func keyedContainer() -> KeyedContainer {
        KeyedContainer(countSlot: reserveSlot(), entrySlot: nil)
    }

    /// Starts a keyed container as the value of `key` in `parent`.
    @inlinable
    public mutating func nestedKeyedContainer(forKey key: String, in parent: inout KeyedContainer) -> KeyedContainer {
        parent.count += 1
        writeSymbol(key)
        let entrySlot = reserveSlot()
        return KeyedContainer(countSlot: reserveSlot(), entrySlot: entrySlot)
    }

    /// Ends a container: writes its entry count, and its length if it is a nested one.
    @inlinable
    public mutating func close(_ container: KeyedContainer) {
        patch(container.countSlot, with: container.count)
        if let entrySlot = container.entrySlot { patchLength(entrySlot) }
    }

    /// Writes `value` under `key`.
    @inlinable
    public mutating func encode<T: BinaryCodable>(_ value: T, forKey key: String, in container: inout KeyedContainer) throws {
        container.count += 1
        writeSymbol(key)
        try writeLengthPrefixed { try value.encode(binary: &$0) }
    }

    /// Writes `value` under `key` through its `Codable` conformance (a type without the macro).
    public mutating func encode<T: Encodable>(_ value: T, forKey key: String, in container: inout KeyedContainer) throws {
        container.count += 1
        writeSymbol(key)
        try writeLengthPrefixed { writer in try writer.context.encodeWithCodable(value, into: &writer.bytes) }
    }

    /// Writes `value` under `key`, or nothing when it is `nil` (as `encodeIfPresent` does).
    @inlinable
    public mutating func encodeIfPresent<T: BinaryCodable>(_ value: T?, forKey key: String, in container: inout KeyedContainer) throws {
        guard let value else { return }
        try encode(value, forKey: key, in: &container)
    }

    /// Writes `value` under `key` through `Codable`, or nothing when it is `nil`.
    public mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: String, in container: inout KeyedContainer) throws {
        guard let value else { return }
        try encode(value, forKey: key, in: &container)
    }

    // MARK: Lists and leaves (the standard conformances)

    /// Writes a list: its count, then each element length-prefixed.
    @inlinable
    mutating func writeList<C: Collection>(_ elements: C) throws where C.Element: BinaryCodable {
        VarInt.append(UInt64(elements.count), to: &bytes)
        for element in elements {
            try writeLengthPrefixed { try element.encode(binary: &$0) }
        }
    }

    @inlinable
    mutating func writeByte(_ byte: UInt8) { bytes.append(byte) }

    @inlinable
    mutating func writeVarInt(_ value: UInt64) { VarInt.append(value, to: &bytes) }

    @inlinable
    mutating func writeRaw(_ raw: UnsafeRawBufferPointer) { bytes.append(contentsOf: raw) }

    /// A length, then the bytes.
    @inlinable
    mutating func writeCounted(_ raw: UnsafeRawBufferPointer) {
        VarInt.append(UInt64(raw.count), to: &bytes)
        bytes.append(contentsOf: raw)
    }

    // MARK: Lengths

    @inlinable
    mutating func writeSymbol(_ key: String) {
        VarInt.append(UInt64(context.symbol(for: key)), to: &bytes)
    }

    @inlinable
    mutating func writeLengthPrefixed(_ body: (inout BinaryWriter) throws -> Void) throws {
        let slot = reserveSlot()
        try body(&self)
        patchLength(slot)
    }

    @inlinable
    mutating func reserveSlot() -> Int {
        bytes.append(0)
        return bytes.count - 1
    }

    /// Fills `slot` with the length of everything written after it.
    @inlinable
    mutating func patchLength(_ slot: Int) {
        patch(slot, with: bytes.count - slot - 1)
    }

    /// Writes `value` as a varint at `slot`, moving the bytes after the slot along if it needs
    /// more than the one byte reserved.
    @inlinable
    mutating func patch(_ slot: Int, with value: Int) {
        var value = UInt64(value)
        let size = VarInt.size(of: value)
        if size > 1 { bytes.insert(contentsOf: repeatElement(0, count: size - 1), at: slot + 1) }
        var index = slot
        while value >= 0x80 {
            bytes[index] = UInt8(truncatingIfNeeded: value) | 0x80
            value >>= 7
            index += 1
        }
        bytes[index] = UInt8(value)
    }
}

extension BinaryWriter {
    /// A keyed container being written: where its count goes and how many entries it has so far.
    public struct KeyedContainer {
        @usableFromInline let countSlot: Int
        /// Where the container's length goes when it is the value of a parent's entry.
        @usableFromInline let entrySlot: Int?
        @usableFromInline var count = 0

        @inlinable
        init(countSlot: Int, entrySlot: Int?) {
            self.countSlot = countSlot
            self.entrySlot = entrySlot
        }
    }
}
