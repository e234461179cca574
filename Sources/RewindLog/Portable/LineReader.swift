import Foundation
import GRDB
import Rewind

/// Reads a file line by line without loading it whole.
final class LineReader {
    private let handle: FileHandle
    private var buffer = Data()
    private var atEnd = false

    init?(url: URL) {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        self.handle = handle
    }

    deinit {
        try? handle.close()
    }

    func next() throws -> Data? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[buffer.startIndex..<newline]
                buffer.removeSubrange(buffer.startIndex...newline)
                return Data(line)
            }
            if atEnd {
                guard !buffer.isEmpty else { return nil }
                defer { buffer.removeAll() }
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
