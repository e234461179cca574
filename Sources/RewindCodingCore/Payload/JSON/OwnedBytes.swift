import Foundation

/// A growable run of bytes in one `malloc` allocation of its own, which can become a `Data`
/// without a copy (``take()``).
///
/// Where a large value's JSON is written as it goes (`JSONTree`): when the value's root can be
/// finished where its members' bytes already are, these bytes are the encoder's output. In an
/// array they would be copied into the `Data` the encoder returns — for a snapshot of 1.4 MB, a
/// second 1.4 MB beside the first at the peak of the recorder's memory.
///
/// Not thread-safe: owned by one tree, used by the one thread encoding.
final class OwnedBytes {
    private(set) var base: UnsafeMutableRawPointer?
    private(set) var count = 0
    private(set) var capacity = 0

    deinit {
        free(base)
    }

    /// The bytes at `range`, valid until the next call that changes the buffer.
    subscript(range: Range<Int>) -> UnsafeRawBufferPointer {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "OwnedBytes: \(range) is outside 0..<\(count)")
        return UnsafeRawBufferPointer(start: base.map { $0 + range.lowerBound }, count: range.count)
    }

    /// Makes room for at least `minimum` bytes in all.
    func reserve(_ minimum: Int) {
        guard minimum > capacity else { return }
        // `realloc`, not a new buffer and a copy: a large block is moved by remapping its pages.
        guard let grown = realloc(base, minimum) else { fatalError("OwnedBytes: out of memory for \(minimum) bytes") }
        base = grown
        capacity = minimum
    }

    /// Adds `extra` bytes at the end, their contents undefined: for the caller to fill in.
    func grow(by extra: Int) {
        if count + extra > capacity { reserve(max(count + extra, capacity * 2)) }
        count += extra
    }

    func append(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        let start = count
        grow(by: bytes.count)
        (base! + start).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
    }

    func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// Inserts `byte` before the byte at `offset`, moving the ones after it.
    func insert(_ byte: UInt8, at offset: Int) {
        precondition(offset >= 0 && offset <= count, "OwnedBytes: \(offset) is outside 0...\(count)")
        grow(by: 1)
        (base! + offset + 1).copyMemory(from: base! + offset, byteCount: count - 1 - offset)
        base!.storeBytes(of: byte, toByteOffset: offset, as: UInt8.self)
    }

    /// Moves `length` bytes from `source` to `destination` (the ranges may overlap).
    func move(from source: Int, to destination: Int, length: Int) {
        precondition(source >= 0 && destination >= 0 && length >= 0 && max(source, destination) + length <= count, "OwnedBytes: a move outside 0..<\(count)")
        guard length > 0, source != destination else { return }
        (base! + destination).copyMemory(from: base! + source, byteCount: length)
    }

    /// Writes `bytes` at `offset`, over what is there.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
        precondition(offset >= 0 && offset + bytes.count <= count, "OwnedBytes: a write outside 0..<\(count)")
        guard !bytes.isEmpty else { return }
        (base! + offset).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
    }

    /// Keeps the first `newCount` bytes, and the capacity.
    func truncate(to newCount: Int) {
        precondition(newCount >= 0 && newCount <= count, "OwnedBytes: \(newCount) is outside 0...\(count)")
        count = newCount
    }

    /// Frees the buffer.
    func release() {
        free(base)
        base = nil
        count = 0
        capacity = 0
    }

    /// The bytes as a `Data` that owns their allocation, the buffer left empty.
    func take() -> Data {
        guard let bytes = base, count > 0 else {
            release()
            return Data()
        }
        // Shrunk to what is used first: what the `Data` holds is what it keeps resident.
        let owned = count < capacity ? (realloc(bytes, count) ?? bytes) : bytes
        let data = Data(bytesNoCopy: owned, count: count, deallocator: .free)
        base = nil
        count = 0
        capacity = 0
        return data
    }
}
