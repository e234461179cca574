import Foundation
import RewindTestProcesses
import RewindTestSupport
import Testing

/// `Tools/hung-tests.sh`, which CI runs when the tests pass their time limit, names the tests
/// that started and never ended: every way Swift Testing prints an end counts as one.
@Suite("Hung tests script")
struct HungTestsScriptTests {
    @Test("it names the tests that never ended, and none that ended in any of the runner's forms")
    func namesOnlyUnended() async throws {
        let folder = try TemporaryDirectory()
        let log = folder.file("tests.log")
        let lines = [
            #"◇ Test "passes" started."#,
            #"◇ Test "passes with a known issue" started."#,
            #"◇ Test "parameterized" started."#,
            #"◇ Test case passing 1 argument round → 1 to "parameterized" started."#,
            #"◇ Test "fails" started."#,
            #"◇ Test "fails, parameterized" started."#,
            #"◇ Test "one case" started."#,
            #"◇ Test "hangs" started."#,
            #"◇ Test "recorded an issue, then hangs" started."#,
            #"✔ Test "passes" passed after 0.010 seconds."#,
            #"━ Test "passes with a known issue" passed after 316.529 seconds with 1 known issue."#,
            #"✔ Test "parameterized" with 14 test cases passed after 144.384 seconds."#,
            #"✘ Test "fails" recorded an issue at A.swift:1:2: Expectation failed"#,
            #"✘ Test "fails" failed after 1.000 seconds with 1 issue."#,
            #"✘ Test "fails, parameterized" with 2 test cases failed after 318.432 seconds with 2 issues."#,
            #"✔ Test "one case" with 1 test case passed after 0.5 seconds."#,
            #"✘ Test "recorded an issue, then hangs" recorded an issue at B.swift:3:4: Time limit was exceeded: 60.000 seconds"#,
        ]
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: log))
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let output = try await run("/bin/bash", [root.appendingPathComponent("Tools/hung-tests.sh").path, "--names", log], timeout: 60)
        #expect(output.status == 0, "\(output.standardError)")
        let named = output.standardOutput.split(separator: "\n").filter { $0.hasPrefix("  ") }.map { $0.dropFirst(2) }
        #expect(named == ["hangs", "recorded an issue, then hangs"], "\(output.standardOutput)")
    }
}
