package import Foundation
import Rewind
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file line by line without loading it whole.
///
/// The bytes read and not yet returned are `buffer[start...]`: a line returned moves `start`
/// past it, and the lines returned are dropped from the buffer only when more is read, once a
/// chunk. (Removing each line from the front of a `Data` as it was returned moved the rest of
/// the chunk every line, and finding its end went through `Data`'s indices byte by byte: a
/// quarter of the samples of a `rewind pull`, whose import of the export it writes was 63 %.)
package final class LineReader {
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var start = 0
    /// How many bytes from `start` are known to hold no newline: each chunk is searched once, so
    /// a line of 100 MB costs one pass, not one per chunk.
    private var scanned = 0
    private var atEnd = false

    /// Bytes read from the file at once.
    static let chunkSize = 1 << 16

    package init?(url: URL) {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        self.handle = handle
    }

    deinit {
        try? handle.close()
    }

    /// The next line, without its newline; the last line whether or not a newline ends it;
    /// `nil` at the end.
    package func next() throws -> Data? {
        while true {
            let from = start + scanned
            let newline = Self.newline(in: buffer, from: from)
            if let newline {
                let line = buffer.withUnsafeBufferPointer { bytes in Data(UnsafeBufferPointer(rebasing: bytes[start..<newline])) }
                start = newline + 1
                scanned = 0
                return line
            }
            scanned = buffer.count - start
            if atEnd {
                guard start < buffer.count else { return nil }
                defer { (buffer, start, scanned) = ([], 0, 0) }
                return buffer.withUnsafeBufferPointer { bytes in Data(UnsafeBufferPointer(rebasing: bytes[start...])) }
            }
            if start > 0 {
                buffer.removeSubrange(..<start)
                start = 0
            }
            if let chunk = try handle.read(upToCount: Self.chunkSize), !chunk.isEmpty {
                buffer.append(contentsOf: chunk)
            } else {
                atEnd = true
            }
        }
    }

    /// The index of the first newline in `bytes` at or after `from`. C's `memchr`, not
    /// `firstIndex(of:)`: unspecialized, as in a debug build, that went through generic metadata
    /// and an allocation a byte — the 100 MB line of a hostile export took 25 s alone, over a
    /// minute beside the other tests.
    private static func newline(in bytes: [UInt8], from: Int) -> Int? {
        bytes.withUnsafeBufferPointer { bytes in
            guard from < bytes.count, let base = bytes.baseAddress,
                  let found = memchr(base + from, Int32(UInt8(ascii: "\n")), bytes.count - from)
            else { return nil }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
    }
}
