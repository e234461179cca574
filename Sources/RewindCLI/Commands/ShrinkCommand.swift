import ArgumentParser
import Foundation
import RewindLog
import RewindReplay

/// `rewind shrink PATH --invariant NAME --output FIXTURE`.
struct ShrinkCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "shrink",
        abstract: "Cut a failing log down to the fewest actions that still break an invariant.",
        discussion: """
            Delta debugging over the actions from the session's start to the first failure: \
            each candidate is replayed from the initial state, and the result keeps no action \
            that could be removed. The kept actions are written as a small log (a test fixture). \
            Exits 1 when nothing breaks the invariant.
            """
    )

    @OptionGroup var options: LogOptions
    @OptionGroup var replay: ReplayFlags
    @OptionGroup var target: ConditionOptions
    @Option(name: .shortAndLong, help: "The fixture log to write (must not exist).") var output: String
    @Flag(help: "Let an action stay without the action that caused it (an effect's result without its tap); by default every kept action keeps its cause.")
    var ignoreCauses = false
    @Option(help: ArgumentHelp(
        "Also write a Swift test that replays the fixture with RewindTesting: this file, or a file named after the condition in this folder (must not exist).",
        valueName: "path"
    ))
    var test: String?

    func report() throws -> Report {
        let log = try options.open()
        return try target.app(in: log, with: replay).run(self)
    }
}

extension ShrinkCommand {
    /// The test for the fixture, as the inspector offers it.
    func fixtureTest(for report: Report) -> FixtureTest {
        let log = if case .store = options.location { "the store's log" } else { (options.path as NSString).lastPathComponent }
        return FixtureTest(fixture: (output as NSString).lastPathComponent, log: log, invariant: target.invariant, condition: target.condition, report: report)
    }

    /// The file `--test PATH` names: PATH, or in a folder, the file named after the condition.
    func testFile(_ path: String) throws -> String {
        var isFolder: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
        let file: String
        if exists, isFolder.boolValue {
            let name = FixtureTest(fixture: "", log: "", invariant: target.invariant.map { ($0, nil) }, condition: target.condition, kept: 0, original: 0).fileName
            file = (path as NSString).appendingPathComponent(name)
        } else {
            file = path
        }
        guard !FileManager.default.fileExists(atPath: file) else { throw InputError("--test \(file): the file exists; give another path") }
        guard file.hasSuffix(".swift") else { throw InputError("--test \(file): a Swift test file ends in .swift") }
        return file
    }
}

extension ShrinkCommand: ReplayingCommand {
    /// The fewest actions after which the condition still holds, written to `output`; or
    /// `found` false when it never holds.
    struct Report: CommandReport {
        var found: Bool
        var answersNo: Bool { !found }
        var condition: String
        /// The actions from the session's start to the first failure.
        var originalCount: Int?
        /// The actions kept, in `kept`.
        var keptCount: Int?
        /// How many candidates were replayed.
        var replays: Int?
        var seconds: Double?
        var output: String?
        /// The Swift test written beside the fixture (`--test`).
        var test: String?
        var kept: [EventReport]?
        private var summary: String

        var text: String { summary }

        private enum CodingKeys: String, CodingKey {
            case found, condition, originalCount, keptCount, replays, seconds, output, test, kept
        }

        mutating func wroteTest(_ path: String) {
            test = path
            summary += "\nwrote \(path): a Swift test that replays \(output ?? "the fixture") (keep the fixture in a Fixtures folder beside it)"
        }

        init(notFound labels: Condition.Labels) {
            (found, condition, summary) = (false, labels.found, labels.never)
        }

        init(_ result: ShrinkResult<some Sendable, some Sendable>, in log: any LogReader, labels: Condition.Labels, seconds: Double, output: String) throws {
            (found, condition, self.seconds, self.output) = (true, labels.found, seconds, output)
            (originalCount, keptCount, replays) = (result.originalCount, result.steps.count, result.replays)
            kept = try result.steps.map { try EventReport($0.event, in: log) }
            summary = """
                shrunk \(result.originalCount) actions to \(result.steps.count) after which \(labels.found) \
                (replayed \(result.replays) candidates in \(String(format: "%.2f", seconds)) s):
                \(result.steps.map { "  " + Rendering.line($0.event) }.joined(separator: "\n"))
                wrote \(output): replay it with `rewind bisect \(output) …`, or as a test with RewindTesting
                """
        }
    }

    func run<State, Action>(with app: TypedAppReplay<State, Action>) throws -> Report {
        let clock = ContinuousClock()
        let start = clock.now
        // Where the test goes is settled first: a test that cannot be written stops the
        // command before the search, and leaves no fixture behind.
        let testPath = try test.map(testFile)
        let (result, labels) = try app.searching(for: try target.parsedCondition()) { matches in
            try app.replayer.shrink(session: target.session, keepingCauses: !ignoreCauses, where: matches)
        }
        guard let result else { return Report(notFound: labels) }
        try result.write(to: output, keys: options.keys()).close()
        let elapsed = (clock.now - start).components
        let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        var report = try Report(result, in: app.replayer.log, labels: labels, seconds: seconds, output: output)
        if let testPath {
            let source = fixtureTest(for: report).source
            guard FileManager.default.createFile(atPath: testPath, contents: Data(source.utf8)) else {
                throw InputError("--test \(testPath): cannot write the file")
            }
            report.wroteTest(testPath)
        }
        return report
    }
}
