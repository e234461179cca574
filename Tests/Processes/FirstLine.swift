public import Foundation

/// What a child process writes to `pipe` up to its first newline (or its end): the line a
/// server prints once it listens, with its address.
public func firstLine(of pipe: Pipe) -> Data {
    var line = Data()
    while !line.contains(UInt8(ascii: "\n")) {
        let chunk = pipe.fileHandleForReading.availableData
        guard !chunk.isEmpty else { break }
        line.append(chunk)
    }
    return line
}
