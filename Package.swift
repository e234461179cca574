// swift-tools-version: 6.1
import CompilerPluginSupport
import PackageDescription

/// Settings every Rewind target shares, applied once in a loop at the end (as swift-log does):
/// Swift 6 language mode (complete concurrency checking) plus the upcoming features the house
/// style asks for. With internal imports by default, a module's dependencies (GRDB in RewindLog)
/// reach its public API only where it says `public import`.
let sharedSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Rewind",
    // `Synchronization.Mutex` (the store's locks) is the floor on Apple platforms.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "Rewind", targets: ["Rewind"]),
        .library(name: "RewindCoding", targets: ["RewindCoding"]),
        .library(name: "RewindCodingCore", targets: ["RewindCodingCore"]),
        .library(name: "RewindLog", targets: ["RewindLog"]),
        .library(name: "RewindLogCore", targets: ["RewindLogCore"]),
        .library(name: "RewindReplay", targets: ["RewindReplay"]),
        .library(name: "RewindPostgres", targets: ["RewindPostgres"]),
        .library(name: "RewindTesting", targets: ["RewindTesting"]),
        .library(name: "RewindCLI", targets: ["RewindCLI"]),
        .library(name: "RewindInspector", targets: ["RewindInspector"]),
        .library(name: "RewindFeedback", targets: ["RewindFeedback"]),
        .library(name: "RewindOpenCombine", targets: ["RewindOpenCombine"]),
        .library(name: "RewindUpload", targets: ["RewindUpload"]),
        .executable(name: "rewind", targets: ["rewind"]),
    ],
    // `PostgreSQL` (on by default): every `rewind` command reads one log of a PostgreSQL store by
    // URL, `push` and `pull` move sessions between logs and a store, and `bisect`/`verify
    // --all-sessions` ask a store's sessions. It brings postgres-nio and SwiftNIO into every replay
    // tool built on RewindCLI; an app that wants its tool without them depends on Rewind with
    // `traits: []`.
    //
    // `Collector` (off by default): `rewind collect`, the server a team runs to receive its apps'
    // reports (Hummingbird 2 and its SwiftNIO stack). Off, Hummingbird is not even resolved; the
    // team builds its `rewind` with `--traits defaults,Collector` (Tools/dev.sh enables all traits).
    //
    // `MCP` (on by default): `rewind mcp`, the read-only questions for AI agents over the Model
    // Context Protocol (the MCP swift-sdk and swift-log) in every replay tool built on RewindCLI.
    traits: [
        .trait(name: "PostgreSQL", description: "PostgreSQL log stores in the rewind commands (postgres-nio, SwiftNIO)."),
        .trait(name: "Collector", description: "`rewind collect`, the report collector server (Hummingbird 2)."),
        .trait(name: "MCP", description: "`rewind mcp`: the read-only questions for AI agents over the Model Context Protocol (its swift-sdk, swift-log)."),
        .default(enabledTraits: ["PostgreSQL", "MCP"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/pointfreeco/swift-custom-dump", from: "1.7.3"),
        .package(url: "https://github.com/pointfreeco/swift-snapshot-testing", from: "1.19.7"),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
        // AES-GCM for logs encrypted at rest (RewindLog; internal: no Crypto type is public).
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        // The inspector's sockets (RewindInspector: FlyingSocks, the package's event-loop half;
        // its HTTP half is ours, see InspectorServer): dependency-free, so every app's replay
        // tool builds in seconds more, not minutes (see the RewindInspector article).
        .package(url: "https://github.com/swhitty/FlyingFox", from: "0.27.1"),
        // The `@BinaryCodable` macro's implementation (a compiler plugin: nothing links it).
        .package(url: "https://github.com/swiftlang/swift-syntax", "600.0.0"..<"604.0.0"),
        // Counts heap allocations for `rewind-allocations` (the tool only; no library uses it).
        .package(url: "https://github.com/ordo-one/malloc-interposer", from: "1.6.1"),
        // The PostgreSQL log store (RewindPostgres only): the server's wire protocol over NIO,
        // TLS through swift-nio-ssl, and the Logger type its API takes.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // The report collector's HTTP server (RewindCollect, under the Collector trait only).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // The HTTP parts Hummingbird's pipeline carries (NIOHTTPTypes), for the collector's
        // per-request deadline handler; Hummingbird depends on it already.
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // `rewind mcp` (the MCP trait): the Model Context Protocol's official SDK, for its server
        // and JSON-RPC types (RewindCLI only: replay tools link it, apps never do).
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk", from: "0.12.1"),
        // `swift package preview-documentation` (Tools/docs.sh preview) and
        // `generate-documentation`; Tools/docs.sh's archives run docc directly.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // The store core: no dependencies beyond the toolchain.
        .target(name: "Rewind"),

        // The payload codecs, and the readers and writers `@BinaryCodable`'s code calls: what
        // the log needs, without the macro (as RewindLogCore is to RewindLog). An app that
        // records without the macro builds no swift-syntax (Tools/consumer.sh checks it).
        .target(name: "RewindCodingCore"),
        // Generated binary coding: `@BinaryCodable` over RewindCodingCore, re-exported. Apps
        // annotate their actions here without depending on the log or SQLite.
        .target(name: "RewindCoding", dependencies: ["RewindCodingCore", "RewindMacros"]),
        .macro(
            name: "RewindMacros",
            dependencies: [
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            ]
        ),

        // The system's zlib, for snapshots (RewindLog's SnapshotCompression). Not compress-nio:
        // two one-shot calls do the job, and it would bring SwiftNIO into every app's binary.
        .systemLibrary(name: "CZlib"),

        // The crash hook's signal handler, in C so that no Swift runtime code runs inside it
        // (RewindLogCore's `CrashHook`).
        .target(name: "CRewindCrash"),

        // An asymmetric fence (membarrier(2) on Linux) for the dispatch path and the hang
        // watchdog: the path pays a compiler barrier, the watchdog a system call (`AsymmetricFence`).
        .target(name: "CRewindFence"),

        // The log's core, with no store in it (as NIOCore is to NIOPosix): the model, the reading
        // and recording protocols, the one fold, the recorder and its writer thread, redaction,
        // encryption, schema drift and the portable format. No GRDB: a third store implements
        // `LogReader` and `RecordingLog` on this alone.
        .target(
            name: "RewindLogCore",
            dependencies: [
                "Rewind",
                "RewindCodingCore",
                "CZlib",
                "CRewindCrash",
                "CRewindFence",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            // Its required-reason API uses, declared for the App Store (PrivacyManifestTests).
            resources: [.copy("PrivacyInfo.xcprivacy")]
        ),

        // The embedded store: `EventLog`, one SQLite file, with all of its SQL, its migrations
        // (embedded from Migrations/) and its GRDB helpers.
        .target(
            name: "RewindSQLite",
            dependencies: [
                "RewindLogCore",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            resources: [.copy("PrivacyInfo.xcprivacy")]
        ),

        // What apps import: the core and the SQLite store in one module (both re-exported), so
        // `import RewindLog` records to a file as it always did.
        .target(name: "RewindLog", dependencies: ["RewindLogCore", "RewindSQLite"]),

        // The log store in PostgreSQL, for fleets and servers: connection, credentials, schema.
        .target(
            name: "RewindPostgres",
            dependencies: [
                "Rewind",
                "RewindLog",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Replay: time travel, diffs, bisect, verify, what-if.
        .target(
            name: "RewindReplay",
            dependencies: [
                "Rewind",
                "RewindLog",
                .product(name: "CustomDump", package: "swift-custom-dump"),
            ]
        ),

        // Test helpers: replayed state against reference snapshots, invariants over recorded
        // logs, the recording round-trip property, and a recording TestStore.
        .target(
            name: "RewindTesting",
            dependencies: [
                "Rewind",
                "RewindLog",
                "RewindReplay",
                .product(name: "SnapshotTesting", package: "swift-snapshot-testing"),
                .product(name: "CustomDump", package: "swift-custom-dump"),
            ]
        ),

        // The inspector's web side: a loopback HTTP server (token, Host check), the page it
        // serves (embedded), and the calls it forwards to an API the CLI implements.
        .target(
            name: "RewindInspector",
            dependencies: [.product(name: "FlyingSocks", package: "FlyingFox")],
            // The page, as a web developer edits it, compiled into the binary as bytes
            // (`PackageResources`): a copied `rewind` serves it with no bundle to find.
            resources: [.embedInCode("Page/inspector.html"), .embedInCode("Page/inspector.js"), .embedInCode("Page/inspector.css")]
        ),

        // The rewind command tree, as a library any app's replay tool can run.
        .target(
            name: "RewindCLI",
            dependencies: [
                "Rewind",
                "RewindLog",
                "RewindReplay",
                "RewindInspector",
                .target(name: "RewindPostgres", condition: .when(traits: ["PostgreSQL"])),
                .target(name: "RewindCollect", condition: .when(traits: ["Collector"])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "CustomDump", package: "swift-custom-dump"),
                .product(name: "MCP", package: "swift-sdk", condition: .when(traits: ["MCP"])),
                // The Logger the MCP transport protocol asks for (a no-op one: nothing is logged).
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["MCP"])),
            ]
        ),

        // Feedback loops (Spin), cycles, activity tracking and error routing (cause-logic-effect),
        // on the store core.
        .target(name: "RewindFeedback", dependencies: ["Rewind"]),

        // The optional bridge to OpenCombine: state publishers, dispatch from publishers,
        // feedbacks that return publishers. Only this module depends on OpenCombine.
        .target(
            name: "RewindOpenCombine",
            dependencies: ["Rewind", "RewindFeedback", .product(name: "OpenCombine", package: "OpenCombine")]
        ),

        // The uploader: sends an outbox's reports to a collector over HTTPS (URLSession; on Linux
        // FoundationNetworking and libcurl, which only apps that upload link).
        .target(name: "RewindUpload", dependencies: ["RewindLogCore"]),

        // `rewind collect`: the server that receives reports (Hummingbird 2), its tokens and
        // limits, over the collected-reports store. Its dependencies are the Collector trait's
        // only: every file is inside `#if Collector`, so without the trait the module is empty
        // and Hummingbird is not resolved.
        .target(
            name: "RewindCollect",
            dependencies: [
                "RewindLog",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Collector"])),
                // HTTPS served directly (`--tls-certificate`); NIOSSL is PostgreSQL's TLS too.
                .product(name: "HummingbirdCore", package: "hummingbird", condition: .when(traits: ["Collector"])),
                .product(name: "HummingbirdTLS", package: "hummingbird", condition: .when(traits: ["Collector"])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["Collector"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Collector"])),
                .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["Collector"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Collector"])),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras", condition: .when(traits: ["Collector"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Collector"])),
            ]
        ),

        // Two realistic apps (shop, todo) that the demo, the tests and the benchmarks drive.
        .target(name: "RewindExamples", dependencies: ["Rewind", "RewindCoding"]),

        // The `rewind` command-line tool.
        .executableTarget(
            name: "rewind",
            dependencies: [
                "Rewind",
                "RewindLog",
                "RewindCLI",
                "RewindExamples",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tools/rewind"
        ),

        // Helpers shared by the test targets.
        .target(
            name: "RewindTestSupport",
            dependencies: [
                "Rewind", "RewindCoding", "RewindLog", "RewindLogCore", "RewindSQLite", "RewindReplay", "RewindExamples", "RewindTestProcesses",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Tests/Support"
        ),
        // The built products as processes (finding and running them, `rewind serve`, resident
        // memory), for the tests and for `rewind-stress`: no `@testable` import, so that a
        // release build of the tools can use them.
        .target(name: "RewindTestProcesses", path: "Tests/Processes"),
        // An app's own replay tool, in three lines: RewindCLI with the todo app registered.
        .executableTarget(
            name: "rewind-todo",
            dependencies: ["RewindCLI", "RewindExamples"],
            path: "Tools/rewind-todo"
        ),
        // The shop's replay tool with one case made slow, for `rewind profile`'s tests.
        .executableTarget(
            name: "rewind-shop-slowed",
            dependencies: ["Rewind", "RewindCLI", "RewindExamples"],
            path: "Tests/SlowedTool"
        ),

        // Benchmarks of Rewind's workloads against their baselines (run with -c release).
        .executableTarget(
            name: "rewind-bench",
            dependencies: [
                "Rewind",
                "RewindLog",
                "RewindReplay",
                "RewindExamples",
                .target(name: "RewindPostgres", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["PostgreSQL"])),
                // The collect workload's client (LoopbackConnection) and its servers' first lines.
                "RewindTestProcesses",
                // The collect workload's floor: a minimal handler on the same server framework.
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Collector"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Collector"])),
            ],
            path: "Tools/rewind-bench",
            // The headline sitting (`--json`) and the README that shows it.
            exclude: ["README.md", "headline.json"]
        ),

        // Allocations per dispatch with and without the recorder (run with the interposer
        // preloaded: `Tools/dev.sh allocations`).
        .executableTarget(
            name: "rewind-allocations",
            dependencies: [
                "Rewind",
                "RewindLog",
                "RewindExamples",
                .product(name: "MallocInterposerSwift", package: "malloc-interposer"),
            ],
            path: "Tools/rewind-allocations"
        ),

        // Crash-safety checks: records until SIGKILLed, and a loop that kills and checks.
        .executableTarget(
            name: "rewind-stress",
            dependencies: [
                "Rewind",
                "RewindLog",
                "RewindReplay",
                "RewindExamples",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // The concurrent run's readers take one consistent snapshot with plain SQL.
                .product(name: "GRDB", package: "GRDB.swift"),
                // The store soak: a recorder into PostgreSQL and `rewind serve` over it (its
                // `ServedInspector`), and plain SQL to find and stop the recorder's backend.
                "RewindTestProcesses",
                // The field app's uploader (`field-app`).
                "RewindUpload",
                .target(name: "RewindPostgres", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["PostgreSQL"])),
            ],
            path: "Tools/rewind-stress"
        ),

        .testTarget(name: "RewindTests", dependencies: ["Rewind", "RewindTestSupport"]),
        .testTarget(
            name: "RewindLogTests",
            dependencies: [
                "Rewind",
                "RewindLog", "RewindLogCore", "RewindSQLite",
                "RewindCoding",
                "RewindExamples",
                "RewindTestSupport",
                "rewind-stress",
                "rewind",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "RewindPostgresTests",
            dependencies: [
                "Rewind",
                "RewindUpload",
                "RewindLog", "RewindLogCore", "RewindSQLite",
                "RewindReplay",
                "RewindPostgres",
                "RewindExamples",
                "RewindTestSupport",
                "rewind",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "RewindReplayTests",
            dependencies: ["Rewind", "RewindCoding", "RewindLog", "RewindLogCore", "RewindSQLite", "RewindReplay", "RewindExamples", "RewindTestSupport"]
        ),
        .testTarget(
            name: "RewindTestingTests",
            dependencies: [
                "Rewind",
                "RewindLog", "RewindLogCore", "RewindSQLite",
                "RewindReplay",
                "RewindTesting",
                "RewindExamples",
                "RewindTestSupport",
                .product(name: "SnapshotTesting", package: "swift-snapshot-testing"),
            ],
            exclude: ["__Snapshots__", "__Fixtures__"]
        ),
        .testTarget(
            name: "RewindToolTests",
            dependencies: [
                "Rewind",
                "RewindLog", "RewindLogCore", "RewindSQLite",
                "RewindExamples",
                "RewindTestSupport",
                "rewind",
                "rewind-todo",
                "rewind-shop-slowed",
                "rewind-allocations",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // The uploader against a real `rewind collect` (the built binary), when built with the
        // Collector trait; without it, only the uploader's own tests.
        .testTarget(
            name: "RewindCollectTests",
            dependencies: [
                "RewindLog", "RewindLogCore", "RewindSQLite",
                "RewindUpload",
                "RewindExamples",
                "RewindTestSupport",
                "rewind",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "RewindInspectorTests",
            dependencies: [
                "Rewind",
                "RewindLog",
                "RewindCLI",
                "RewindInspector",
                "RewindExamples",
                "RewindTestSupport",
                "rewind",
                "rewind-todo",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "RewindFeedbackTests",
            dependencies: ["Rewind", "RewindFeedback", "RewindLog", "RewindReplay", "RewindTestSupport"]
        ),
        .testTarget(
            name: "RewindOpenCombineTests",
            dependencies: [
                "Rewind", "RewindFeedback", "RewindOpenCombine", "RewindTestSupport",
                .product(name: "OpenCombine", package: "OpenCombine"),
            ]
        ),
        // The macro's expansion tests are here too, through the compiler and the macro's plugin
        // executable (BinaryCodableExpansionTests): a test target that linked the macro's module
        // would be built for the host, and the whole package with it.
        .testTarget(
            name: "RewindCodingTests",
            dependencies: ["Rewind", "RewindCoding", "RewindExamples", "RewindTestSupport"]
        ),
        .testTarget(
            name: "RewindExamplesTests",
            dependencies: ["Rewind", "RewindExamples", "RewindTestSupport"]
        ),
        // The docs checked: every ```swift block of the README and the DocC articles compiled
        // (Tools/snippets.py writes Generated/ from them; a test fails when it is out of date),
        // and every benchmark figure they quote is the checked-in headline sitting's.
        .testTarget(
            name: "RewindDocsTests",
            dependencies: [
                "Rewind", "RewindLog", "RewindLogCore", "RewindSQLite", "RewindReplay", "RewindCLI", "RewindCoding", "RewindFeedback",
                "RewindInspector", "RewindPostgres", "RewindTesting", "RewindOpenCombine", "RewindExamples", "RewindUpload",
                // The benchmark's report type, for the quoted-figures check.
                "rewind-bench",
                .product(name: "SnapshotTesting", package: "swift-snapshot-testing"),
                .product(name: "OpenCombine", package: "OpenCombine"),
            ],
            path: "Tests/Docs",
            exclude: ["Context"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + sharedSettings
}
