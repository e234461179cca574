// swift-tools-version: 6.1
// An app as Rewind's README installs it, built by Tools/consumer.sh against this checkout (CI
// runs it): an app library that records, its replay tool on RewindCLI and its tests on
// RewindTesting. With `traits: []` nothing of PostgreSQL, SwiftNIO or a server reaches them.
// The README shows these lines (Tools/snippets.py checks it), with Rewind's URL for the path.
import PackageDescription

let package = Package(
    name: "Counter",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [
        .package(name: "rewind", path: "../..", traits: []),
    ],
    targets: [
        // The app: the store (Rewind) and the recorder with its SQLite log (RewindLog).
        .target(name: "Counter", dependencies: [
            .product(name: "Rewind", package: "rewind"),
            .product(name: "RewindLog", package: "rewind"),
        ]),
        // Its replay tool and inspector: `swift run counter-rewind serve counter.rewind`.
        .executableTarget(name: "counter-rewind", dependencies: [
            "Counter",
            .product(name: "RewindCLI", package: "rewind"),
        ]),
        // Its tests: a recorded session as a regression test.
        .testTarget(name: "CounterTests", dependencies: [
            "Counter",
            .product(name: "RewindTesting", package: "rewind"),
        ]),

        // What Rewind adds to a release binary (`Tools/consumer.sh --sizes`): the same small app
        // without Rewind, on its store, and recording.
        .executableTarget(name: "size-baseline"),
        .executableTarget(name: "size-store", dependencies: [.product(name: "Rewind", package: "rewind")]),
        .executableTarget(name: "size-recording", dependencies: [
            .product(name: "Rewind", package: "rewind"),
            .product(name: "RewindLog", package: "rewind"),
        ]),
    ]
)
