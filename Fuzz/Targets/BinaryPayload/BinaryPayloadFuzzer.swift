import FuzzDriver
import FuzzSupport
import RewindCoding

/// The binary codec's `Decoder` (the `Codable` path) on arbitrary bytes: every input must
/// decode or throw; a trap, a hang or a runaway allocation is a finding.
@_cdecl("fuzz_binary_payload_main")
func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(binaryPayloadFuzzer, argc: argc, argv: argv)
}

func binaryPayloadFuzzer(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size)
    _ = try? codec.decode(PlainAction.self, from: bytes)
    _ = try? codec.decode([String: [Int?]].self, from: bytes)
    return 0
}

private let codec = primedBinaryCodec()
