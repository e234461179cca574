package import Foundation
import Rewind

/// Reads a file line by line without loading it whole.
package final class LineReader {
    private let handle: FileHandle
    private var buffer = Data()
    private var atEnd = false
    /// How many bytes at the buffer's start are known to hold no newline: each chunk is
    /// searched once, so a line of 100 MB costs one pass, not one per chunk.
    private var scanned = 0

    package init?(url: URL) {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        self.handle = handle
    }

    deinit {
        try? handle.close()
    }

    package func next() throws -> Data? {
        while true {
            if let newline = buffer[(buffer.startIndex + scanned)...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[buffer.startIndex..<newline]
                buffer.removeSubrange(buffer.startIndex...newline)
                scanned = 0
                return Data(line)
            }
            scanned = buffer.count
            if atEnd {
                guard !buffer.isEmpty else { return nil }
                defer { buffer.removeAll(); scanned = 0 }
                return buffer
            }
            if let chunk = try handle.read(upToCount: 1 << 16), !chunk.isEmpty {
                buffer.append(chunk)
            } else {
                atEnd = true
            }
        }
    }
}
