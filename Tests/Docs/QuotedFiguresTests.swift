import Foundation
@testable import rewind_bench
import Testing

/// The benchmark figures the docs quote are the checked-in headline sitting's
/// (`Tools/rewind-bench/headline.json`, a `rewind-bench --json` run): its README's table is that
/// file as `--markdown` renders it, and every figure quoted elsewhere is listed here, with where
/// in the file it comes from.
@Suite("quoted figures")
struct QuotedFiguresTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    static func headline() throws -> BenchReport {
        try JSONDecoder().decode(BenchReport.self, from: Data(contentsOf: root.appendingPathComponent("Tools/rewind-bench/headline.json")))
    }

    /// Every quote of a figure, by file: `{workload|variant|style}` stands for the figure of the
    /// variant so named in the workload whose name starts so, written in `style`: `0`, `1`,
    /// `2` (decimals), `int` (whole, grouped: `448,446`), `ratio` (its ratio to the baseline:
    /// `0.43×`).
    static let quotes: [(file: String, quote: String)] = [
        ("Sources/RewindLogCore/RewindLogCore.docc/Recording.md",
         "ends up about the same size ({size|binary|1} against {size|json|1} bytes per event)"),
        ("Sources/RewindLogCore/RewindLogCore.docc/Recording.md",
         "replay is where it wins ({replay|binary: replay to the final state|int} actions a second against {replay|json: replay to the final state|int}"),
        ("Sources/RewindLogCore/RewindLogCore.docc/Recording.md",
         "{encryption|binary, size: encrypted|0} bytes per event against {encryption|binary, size: clear (baseline)|0} with the binary codec and {encryption|json, size: encrypted|0} against {encryption|json, size: clear (baseline)|0} with JSON"),
        ("Sources/RewindLogCore/RewindLogCore.docc/Recording.md",
         "{encryption|binary, writer CPU per 1,000: encrypted|1} against {encryption|binary, writer CPU per 1,000: clear (baseline)|1} ms of the writer's CPU per 1,000 actions (binary)"),
        ("Sources/RewindLogCore/RewindLogCore.docc/Recording.md",
         "replay at {encryption|binary, replay to the final state: encrypted|ratio} (binary) and {encryption|json, replay to the final state: encrypted|ratio} (JSON) of the clear speed"),
        ("Tools/rewind-bench/README.md",
         "the recorder dispatches at {dispatch|recorder, default configuration|ratio} of the store without it"),
        ("Tools/rewind-bench/README.md",
         "the recorder commits {record|recorder, json, committed|ratio} (JSON) and {record|recorder, binary, committed|ratio} (binary) of raw inserts"),
        ("Tools/rewind-bench/README.md",
         "{record|recorder, json, committed|int} actions/s against the hand-written middleware's {record|hand-written: JSONEncoder + GRDB, 2048/transaction|int}"),
        ("Tools/rewind-bench/README.md",
         "{size|binary|2} and {size|json|2} bytes per event"),
        ("Tools/rewind-bench/README.md",
         "binary replay is {replay|binary: replay to the final state|ratio} of raw stepping"),
        ("Tools/rewind-bench/README.md",
         "time {defaults|time: default configuration|ratio} and bytes {defaults|size: default configuration|ratio} of snapshots off"),
        ("Tools/rewind-bench/README.md",
         "median {seek|binary, 1000000 events: median|2} ms, worst {seek|binary, 1000000 events: worst|2} ms"),
    ]

    @Test("the bench README's headline table is headline.json as --markdown renders it")
    func headlineTable() throws {
        let readme = try Self.text("Tools/rewind-bench/README.md")
        let start = try #require(readme.range(of: "<!-- headline table: rewind-bench --markdown Tools/rewind-bench/headline.json -->\n"))
        let end = try #require(readme.range(of: "\n<!-- end of the headline table -->", range: start.upperBound..<readme.endIndex))
        #expect(String(readme[start.upperBound..<end.lowerBound]) == (try Self.headline()).markdownTable())
    }

    @Test("every figure the README and the articles quote is the headline's")
    func quoted() throws {
        let report = try Self.headline()
        for (file, quote) in Self.quotes {
            let filled = try Self.fill(quote, from: report)
            // As a reader sees the text: wrapped lines and indents are one space.
            let text = try Self.text(file).split(whereSeparator: \.isWhitespace).joined(separator: " ")
            let says = text.contains(filled)
            #expect(says, "\(file) does not say: \(filled)")
        }
    }

    /// `quote` with its placeholders replaced by the figures of `report`.
    static func fill(_ quote: String, from report: BenchReport) throws -> String {
        var out = "", rest = Substring(quote)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            out += rest[..<open]
            let parts = rest[rest.index(after: open)..<close].split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            try #require(parts.count == 3, "placeholder \(rest[open...close])")
            let workload = try #require(report.workloads.first { $0.name.hasPrefix(parts[0]) }, "no workload \(parts[0])")
            let variant = try #require(workload.variants.first { $0.name == parts[1] }, "no variant '\(parts[1])' in \(workload.name)")
            switch parts[2] {
            case "int": out += Int(variant.value.rounded()).formatted()
            case "ratio": out += String(format: "%.2f×", try #require(variant.ratioToBaseline))
            default: out += String(format: "%.\(Int(parts[2]) ?? 0)f", variant.value)
            }
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }
}
