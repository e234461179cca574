import Foundation
import Rewind
@testable import RewindLogCore
import RewindTestSupport
import Testing

/// The line reader imports and pulls read exports with: every line once, in order, whatever the
/// chunks cut.
@Suite("Line reader")
struct LineReaderTests {
    /// The lines of `text` as the reader gives them: split at each newline, the last line kept
    /// whether or not a newline ends it, nothing after a final newline.
    static func expected(_ bytes: [UInt8]) -> [[UInt8]] {
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
        if bytes.last == UInt8(ascii: "\n") || bytes.isEmpty { lines.removeLast() }
        return lines
    }

    static func read(_ bytes: [UInt8], in folder: TemporaryDirectory, name: String) throws -> [[UInt8]] {
        let url = URL(fileURLWithPath: folder.file(name))
        try Data(bytes).write(to: url)
        let reader = try #require(LineReader(url: url))
        var lines: [[UInt8]] = []
        while let line = try reader.next() { lines.append(Array(line)) }
        #expect(try reader.next() == nil, "and nothing after the end")
        return lines
    }

    @Test("edges: empty file, lone and doubled newlines, no final newline, carriage returns kept", arguments: [
        "", "\n", "\n\n", "a", "a\n", "a\nb", "a\n\nb\n", "\r\n", "a\r\nb",
    ])
    func edges(text: String) throws {
        let folder = try TemporaryDirectory()
        let bytes = Array(text.utf8)
        #expect(try Self.read(bytes, in: folder, name: "edge") == Self.expected(bytes))
    }

    @Test("lines of every length, across chunk boundaries, as long as several chunks and empty")
    func acrossChunks() throws {
        let folder = try TemporaryDirectory()
        var random = SeededRandom(seed: 42)
        var bytes: [UInt8] = []
        let chunk = LineReader.chunkSize
        // Short lines, lines ending exactly at a chunk's edge and just past it, empty lines, and
        // lines several chunks long.
        let lengths = (0..<3_000).map { _ in Int.random(in: 0...120, using: &random) }
            + [chunk - 1, chunk, chunk + 1, 0, 0, 3 * chunk + 17, 1, chunk * 2]
            + (0..<500).map { _ in Int.random(in: 0...2_000, using: &random) }
        for (index, length) in lengths.enumerated() {
            bytes += (0..<length).map { offset in UInt8(ascii: "a") + UInt8((index + offset) % 26) }
            bytes.append(UInt8(ascii: "\n"))
        }
        bytes += Array("last, without a newline".utf8)
        let lines = try Self.read(bytes, in: folder, name: "lines")
        #expect(lines.count == lengths.count + 1)
        #expect(lines == Self.expected(bytes))
    }
}
