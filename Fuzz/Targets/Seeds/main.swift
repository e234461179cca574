// Writes the binary seed corpus (Fuzz/Corpus/binary): one encoding of every fuzzed case.
import Foundation
import FuzzSupport

let folder = CommandLine.arguments.dropFirst().first ?? "Corpus/binary"
try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
let codec = primedBinaryCodec()
for (index, sample) in plainSamples.enumerated() {
    try codec.encode(sample).write(to: URL(fileURLWithPath: "\(folder)/case-\(index)"))
}
print("wrote \(plainSamples.count) seeds to \(folder)")
