// swift-tools-version: 6.0
import CompilerPluginSupport
import PackageDescription

// Coverage-guided fuzz targets (libFuzzer) for the decoders that read untrusted bytes. A
// package of its own, over the main package's sources (symlinked), so that only here are the
// libraries compiled with the fuzzer's instrumentation. Build and run with Fuzz/run.sh.

// Coverage for the decoders: the libraries under test are compiled with the fuzzer's
// instrumentation; the macro (a host tool) is not, so its `main` never meets libFuzzer's.
//
// The macro's host tool is built here from swift-syntax, unless REWIND_MACRO_TOOL names one
// already built from the same sources: Fuzz/run.sh passes the main package's debug build's
// when it is newer than the macro's sources, and swift-syntax — about half of this package's
// build from nothing — is not compiled a second time (CI's libFuzzer step follows its build).
let macroTool = Context.environment["REWIND_MACRO_TOOL"].flatMap { $0.isEmpty ? nil : $0 }
let macroPlugin: [String] = macroTool.map { ["-Xfrontend", "-load-plugin-executable", "-Xfrontend", "\($0)#RewindMacros"] } ?? []
let instrumented: [SwiftSetting] = [.unsafeFlags(["-sanitize=fuzzer"] + macroPlugin)]
let fuzzTarget: [SwiftSetting] = [.unsafeFlags(["-sanitize=fuzzer", "-parse-as-library"] + macroPlugin)]
// libFuzzer without its `main` (SwiftPM names an executable's `main` itself; FuzzDriver starts
// libFuzzer's driver from it). Fuzz/run.sh finds the archive in the toolchain.
let noMain = Context.environment["REWIND_FUZZER_NO_MAIN"] ?? "libclang_rt.fuzzer_no_main.a"
let fuzzLink: [LinkerSetting] = [.unsafeFlags(["-Xlinker", "--whole-archive", "-Xlinker", noMain, "-Xlinker", "--no-whole-archive", "-Xlinker", "--export-dynamic", "-lstdc++"])]

let package = Package(
    name: "RewindFuzz",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
    ] + (macroTool == nil ? [.package(url: "https://github.com/swiftlang/swift-syntax", "600.0.0"..<"604.0.0")] : []),
    targets: [
        .target(name: "Rewind", swiftSettings: instrumented),
        .target(name: "RewindCodingCore", swiftSettings: instrumented),
        .target(name: "RewindCoding", dependencies: ["RewindCodingCore"] + (macroTool == nil ? ["RewindMacros"] : []), swiftSettings: instrumented),
        .systemLibrary(name: "CZlib"),
        // The crash hook's handler (C, not instrumented: it runs inside a signal handler).
        .target(name: "CRewindCrash"),
        .target(name: "CRewindFence"),
        // The log as the main package splits it: the core, the SQLite store, and the module
        // that re-exports both.
        .target(name: "RewindLogCore", dependencies: [
            "Rewind", "RewindCodingCore", "CZlib", "CRewindCrash", "CRewindFence", .product(name: "Crypto", package: "swift-crypto"),
        ], swiftSettings: instrumented),
        .target(name: "RewindSQLite", dependencies: [
            "RewindLogCore", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift"),
        ], swiftSettings: instrumented),
        .target(name: "RewindLog", dependencies: ["RewindLogCore", "RewindSQLite"], swiftSettings: instrumented),
        .target(name: "FuzzSupport", dependencies: ["RewindCoding"], swiftSettings: instrumented),
        .target(name: "FuzzDriver"),
        .executableTarget(name: "fuzz-binary-payload", dependencies: ["FuzzSupport", "FuzzDriver"], path: "Targets/BinaryPayload", swiftSettings: fuzzTarget, linkerSettings: fuzzLink),
        .executableTarget(name: "fuzz-generated-code", dependencies: ["FuzzSupport", "FuzzDriver"], path: "Targets/GeneratedCode", swiftSettings: fuzzTarget, linkerSettings: fuzzLink),
        .executableTarget(name: "fuzz-json-payload", dependencies: ["RewindCoding", "FuzzDriver"], path: "Targets/JSONPayload", swiftSettings: fuzzTarget, linkerSettings: fuzzLink),
        .executableTarget(name: "fuzz-seeds", dependencies: ["FuzzSupport"], path: "Targets/Seeds", swiftSettings: [.unsafeFlags(macroPlugin)], linkerSettings: fuzzLink),
        .executableTarget(name: "fuzz-jsonl-import", dependencies: ["RewindLog", "FuzzDriver"], path: "Targets/JSONLinesImport", swiftSettings: fuzzTarget, linkerSettings: fuzzLink),
        .executableTarget(name: "fuzz-report", dependencies: ["RewindLog", "FuzzDriver"], path: "Targets/Report", swiftSettings: fuzzTarget, linkerSettings: fuzzLink),
    ] + (macroTool == nil ? [
        .macro(name: "RewindMacros", dependencies: [
            .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
            .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
        ]),
    ] : [])
)
