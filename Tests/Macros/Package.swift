// swift-tools-version: 6.0
import CompilerPluginSupport
import PackageDescription

// The `@BinaryCodable` macro's expansion tests, in a package of their own over the macro's
// sources (symlinked). A test target that depends on a macro is built for the host, as the
// macro is; in the main package that took every test target into the host's build, and with
// them the whole package and its dependencies, compiled a second time beside the tools' build
// (about half of CI's build step). Here the tests need only swift-syntax. Tools/dev.sh builds
// and runs them with the main package's tests.
let package = Package(
    name: "RewindMacrosTests",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [
        .package(url: "https://github.com/swiftlang/swift-syntax", "600.0.0"..<"604.0.0"),
    ],
    targets: [
        .macro(
            name: "RewindMacros",
            dependencies: [
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            ]
        ),
        .testTarget(
            name: "RewindMacrosTests",
            dependencies: [
                "RewindMacros",
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
            ]
        ),
    ]
)
