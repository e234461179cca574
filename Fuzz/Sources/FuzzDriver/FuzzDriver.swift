#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The signature of a fuzz target's entry: libFuzzer's `LLVMFuzzerTestOneInput`.
public typealias FuzzTarget = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

/// Runs libFuzzer's driver (its own `main`, as a function) on `target` with the process's
/// arguments. The fuzz executables are SwiftPM executables, whose `main` SwiftPM names itself,
/// so they link libFuzzer without its `main` and start it here.
public func runFuzzer(_ target: FuzzTarget, argc: CInt, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    typealias Driver = @convention(c) (
        UnsafeMutablePointer<CInt>, UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>, FuzzTarget
    ) -> CInt
    guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "LLVMFuzzerRunDriver") else {
        let message = "libFuzzer is not linked in: build with Fuzz/run.sh\n"
        _ = message.withCString { write(2, $0, strlen($0)) }
        return 2
    }
    var count = argc
    var arguments = argv
    return unsafeBitCast(symbol, to: Driver.self)(&count, &arguments, target)
}
