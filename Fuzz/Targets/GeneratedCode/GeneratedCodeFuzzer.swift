import FuzzDriver
import FuzzSupport
import RewindCoding

/// The code `@BinaryCodable` generates (`init(binary:)`, through the binary codec) on
/// arbitrary bytes.
@_cdecl("fuzz_generated_code_main")
func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(generatedCodeFuzzer, argc: argc, argv: argv)
}

func generatedCodeFuzzer(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size)
    _ = try? codec.decode(GeneratedAction.self, from: bytes)
    return 0
}

private let codec = primedBinaryCodec()
